import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliDecompress as unbrotliCb, gunzip as gunzipCb } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { CHUNKINGS, splitChunks } from '../../../src/archive/chunking.js';
import { ARCHIVE_FORMAT, openArchive, putBlob, readBlob } from '../../../src/archive/index.js';
import { openArchiveOn } from '../../../src/archive/open.js';
import { captureTarget } from '../../../src/capture/index.js';

const gunzip = promisify(gunzipCb);
const unbrotli = promisify(unbrotliCb);

/**
 * Known-answer vectors for the archive format (docs/archive-format.md). The inputs are made
 * here from fixed seeds; the expected boundaries, ids and bytes were written down once and are
 * never recomputed by the code under test. When one of these fails, the format changed: every
 * archive written before stops sharing chunks with new captures. That must be a deliberate new
 * FORMAT version, never a side effect.
 */

const hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** SHA-256 in counter mode: `label-0`, `label-1`, … concatenated, cut to `length`. */
function pseudoRandom(label: string, length: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < length; i++) blocks.push(createHash('sha256').update(`${label}-${i}`).digest());
  return Buffer.concat(blocks).subarray(0, length);
}

/** Manifest-like text: low entropy, repetitive, as real artifacts are. */
function manifestLike(entries: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < entries; i++) {
    lines.push(`{"unique_id": "model.kat.m${i}", "raw_code": "select ${(i * 7919) % 1000} as n from t${i % 37}"}`);
  }
  return Buffer.from(lines.join(',\n'));
}

interface Vector {
  name: string;
  /** The archive format whose chunking cuts it (src/archive/chunking.ts). */
  format: 1 | 2;
  bytes: () => Buffer;
  fileId: string;
  lengths: number[];
  chunkIds: string[];
}

const VECTORS: Vector[] = [
  {
    name: '1,000,000 pseudo-random bytes',
    format: 1,
    bytes: () => pseudoRandom('dbtattic-kat', 1_000_000),
    fileId: '7fa0d439fd17d5fb5d3224ae6878855884bfb8436012676dc3bf3b84d45b5497',
    lengths: [78031, 35609, 26572, 48201, 50925, 114028, 89993, 71615, 69235, 105062, 73196, 39295, 68827, 56272, 73139],
    chunkIds: [
      '7528e603d46eab8cdd712d675f3abc650464baf0a41b09e095d07c48d39a387f',
      'a3c1fd3f2f7b728932ff0b6a4b6a64edda8b2d3371f2ad2d7fae8c62290bb634',
      '87c50cd31e5f9fd3ce38ca5f1b7ac3f46811d4a5afe5cfb1585cc25919a33741',
      'b1f62828b3e07fa19d463add566d21e25827cdd948a037b1fa69fd67ece0a817',
      'f6f7d0b4b3dcea36f9803903b54a04eb1e3266c2510ee80d2d0e15ba2fe177c4',
      '03187db26d800d94c04c85f9e0645c8d90b179388c688487f5c71b295894e33c',
      'b6f7084ca72608d9eef59915fae032f424db4e9fe655bba808fc9971e955ac26',
      '8f477c8b7bf2d30141c77bae5f8c25f599f35cc065bd4646e0583be0240be3ae',
      'e0baa64d555f5841037a89f7481e83a7d054abc480b586009f3b2bf08f524ef2',
      'df54bafd58df9b1b83625eb4963eab84a3622baa2bdd5f285f39d34d8cb16911',
      '26b0ede4eb8efcd682768f1af5520899067cd04038b056be1fc473ec3f5f29c2',
      '99574859783c112c148831fbdd51365f36317764499e680f076326cfbd4ff886',
      '276b0b4b0ffe6620106045e8373f863501ee28776797d645142df3b25ac651d0',
      'e86cf2843215d0576b96ad426cd7ba9349ab0727c117a1939f4c320c1eb1dd8e',
      'd574e9642f7686639f6d36389d4d4293e6814c337d74c383459bf423851f3df5',
    ],
  },
  {
    name: '12,000 manifest-like lines',
    format: 1,
    bytes: () => manifestLike(12_000),
    fileId: '246c347f4e9b64303c16683ccb10808372796ad33eafc997302381754b26c21d',
    lengths: [60333, 69784, 113224, 79013, 83305, 68844, 75606, 87238, 57975, 69146, 54525, 65325],
    chunkIds: [
      '5525fee66b0f886286a4470691bdec541fec4ab06e6aec0fe9b485edd97e02cf',
      'dfe6e134b121f322c52ca8eeca893e5b369b5be2d4440b50850ef19a64670b1a',
      '39e7579de05602496d97ff9d024d97abb62ec73eaa6650aa83fc9b313f21997b',
      'ca1d82d20079dfebcf7a413d05d87e85017c44daa70b642377160d3df06e77b3',
      '94c1a8bf7509ca7b711e7ecc8eed56a3af50fac366fe3372c8b0817de7c1e604',
      'b9279faa5cc0b1da34ea366f887492d75152bbfb1f80824d267a90ce94df910b',
      'f66b33cd3da5f0b38a0ef870d17f1225e0bf63cf315fd490e851a9db1d0297e0',
      '6505e0479f38690b74f67b164e25921f3a1eca2618a0be9c1ae51da8f1a20751',
      '55f1f740b026903621f4c4e7fb40be6717997fc9234ab2575215f5b1a980d04e',
      '4abe26b9833902a67b88fb2e3c7d9864c2503075bd082e905a0197f65d9a6d61',
      'b2237047410a14496498dd8a904d636096efdf8531d03f067d57b3fa5b408ad6',
      '4bc714fbe9116521b6f0a372bca71661d29cd6318af4b386a0d467b4b88acf5a',
    ],
  },
  {
    // A run of one byte value never meets the cut condition: chunks are cut at the maximum.
    name: '600,000 zero bytes',
    format: 1,
    bytes: () => Buffer.alloc(600_000),
    fileId: '1358f4ce65f0d1ed482d572e4eac6ea90d465c0ab878f477297474f8f23226c3',
    lengths: [262144, 262144, 75712],
    chunkIds: [
      '8a39d2abd3999ab73c34db2476849cddf303ce389b35826850f9a700589b4a90',
      '8a39d2abd3999ab73c34db2476849cddf303ce389b35826850f9a700589b4a90',
      '7b2f04e83023d52cfd751171662cad5bcc30c73ca9a0c5b5ec2f438a6af7f747',
    ],
  },
  // Format 2: the same inputs cut at 32 KiB on average, written down from an implementation of
  // the cut rule made apart from src/archive/chunking.ts (it reproduces format 1's vectors above).
  {
    name: '1,000,000 pseudo-random bytes',
    format: 2,
    bytes: () => pseudoRandom('dbtattic-kat', 1_000_000),
    fileId: '7fa0d439fd17d5fb5d3224ae6878855884bfb8436012676dc3bf3b84d45b5497',
    lengths: [
      34480, 13591, 43674, 21895, 26572, 48201, 34588, 16337, 39990, 45842, 33540, 36436, 38363, 33957, 36007, 44553, 36183, 39957, 12394, 48707, 45723, 31477,
      33391, 23908, 33846, 38116, 34482, 37617, 36173,
    ],
    chunkIds: [
      '63de90293c83401ba0677268a708c5d2d904236f5e9d8052d7bda0a902e6ea1f',
      '7575fc60ad79901d85de2631a4aed5bdcac7a82565828c19b5aa7f5ac51e1b36',
      'd982c1a16a6e2c257b31c6d1fb21bc1af519bf122d04a4babce4a7c4f69832f4',
      'ec9ad8a64ef7725f2501467966e97a41b4c95dc104997e93dbf69d1845dca25a',
      '87c50cd31e5f9fd3ce38ca5f1b7ac3f46811d4a5afe5cfb1585cc25919a33741',
      'b1f62828b3e07fa19d463add566d21e25827cdd948a037b1fa69fd67ece0a817',
      'd352e0bc07a3b8a32d14259d236a74660722a924336660a2befc2efadcc7fc03',
      'c0c3a5baced87419f45ca366c58b8afa7d08f837c8f5424774a83943c500d0dc',
      '70cf09905eac3b013a62e13c90b1f478ac1184fa6fd739904b2a65a3b619cfc3',
      'ebc6602fbfd929c1a0cee8883a6da7a22c9d41b04e2314db01eecc8940c4a682',
      '61aac3b724f8dfe92c836b42ebf1211b54fe2f851f620c05a1616ce73b15ee6d',
      'f6875f149bd723d9a8e8e626c260a6af0189bb2ecef7959a68fccefa050f43c3',
      'c2c8c28a8618c1c75ef1dc348195f58db924bca20663ca1e7faef6745e1ac319',
      '1ad5935fca65a754b7e236b4ea4bcd68f744bec6b170a19860cd5019a1ed3db0',
      '85215705207a64bcb10dc72d9e0f214b0a5f7b325a7cb8b0ebfb5705c9de21a2',
      'c426f9bd8e1f83f68b6a7ba07314431a8a2e59cd86ae8ff6a8caf2da57ff0660',
      'd4fce9c461d8531348c90c51e67ddb57a1328e6f51a30dd65563d99ad035f9df',
      '515b15656e19f8db18cde8f63f1bce3238f80ff66e08b2dcf2b2bb3438ca7b63',
      '141599a530b21725981adaf85b9cb46c1b2984fdf4329826cc19377c65e3ada3',
      'ede47861f8614077296ab9680e33fec8c0aac525a0f9324af645ae30d8e0e77f',
      'eb32c4351fad6a4a07d6e4e25bab45d442ab252ff24948fb829b2de82d23fc2d',
      '99fa19ba66db15deb59cfa1debb0327f1667c5dbd384645e8bf7dc91c6694bb5',
      'c875d0614676bdfa85dbaebdabadfb7e382c95c2a5ca256050e7ecff0fc59ee8',
      'cb76d0937c415914adb92013f4248fc8a778593fb8e689fcb7ab16c3c0a6814d',
      '292bea64734d88c21ced589f6a7517b5c6c61b44b575a90d85e5114889eeba4f',
      'acd5724ea9542d8eae4368f56175ba0ebfeb63babd7f7d9c5235062c8f394699',
      'e08ae622e3152a36f119512bd1a179af4e78f08aabb15b9ba422683dc4d4d1e4',
      'ce3f6998fd098e74bfa1ad2bbb8de3b30461c842c86378df56205d28fce2f48c',
      '74c66b3d1fbe7980d675c4c7d29fc54b6ecde2c0ebb4da06995e5344d9691775',
    ],
  },
  {
    name: '12,000 manifest-like lines',
    format: 2,
    bytes: () => manifestLike(12_000),
    fileId: '246c347f4e9b64303c16683ccb10808372796ad33eafc997302381754b26c21d',
    lengths: [
      37577, 22756, 50118, 39212, 33762, 48284, 43587, 34155, 46189, 50019, 15260, 42099, 39103, 47988, 54040, 33198, 55772, 59607, 45476, 20791, 45288, 20037,
    ],
    chunkIds: [
      'a630006ce90e8a67864319dc0e9e3e636f30d845647eef525645ca782c0258b5',
      '41b04a4bde4888827bba1247dfc9e09db89e5f1dff1f7fb7347e7922139008b7',
      '68498025628c1a3a76af64e800b5a9c5c7b1fe5fb56b9fcdf601be1312904fd9',
      '4e7f09fa238b5e88c8a79e6cb3491325467af282e6346328892c3825629f4e82',
      '62f325feb8ca7326e343fad16525ed3d61e8a547dae221142fdd851549f04bff',
      'f902efde3bb22071bafcebeec3b77dd0f9994a63e86b2ee5109c67cb4f06733a',
      '95d091dc307104696486c19969dd2d66f3b92f20f6c46a10afafabbfdebfc44e',
      '94b7a2145d748016eb95fe2d160021ce41d8385fcd52d4dbb4cecde7f3ef518e',
      '97f3076fc5fe20a0709677d1346f20e385938a3c82d71192a78b1e960e5aba4f',
      '76609d06d0c47743255d58a0d68f98203cf8d6b084307927398cc2df576d2c42',
      'b59b4d8447c26f7b372ba81aff7eafe190d30885855e199f580c7ab45544a490',
      'bf3ca2c4a5dcf5d5d3e098956fd9499a980769061138967a86990188bfbef6c9',
      '3042b6243d047d898d40281e7d948eee402974c6bded49f553136801c2b08a05',
      '7c7e6bbe67ed3b59ec7029fe204fa43b4b58b6c6ab0bdb892798c22312fcd883',
      '92720978d087f190e2b5ea38ea16b181535857c56e4200cf71c760314292284b',
      'eb8c1723b026f7b7dd602694b2e9b41ba9c7fca2401cc2204365e108c528e196',
      'db70f9bac3181ca1f48a37d5caeda5fc7d902ad14485f930e5cc4f5c67414828',
      '36843e7afa7629c9ff3be80c9b7e61f49f1af0d0519f7f1510937d261c491908',
      'a091f0e71ec34c01d83e1c1146c98ea75550a400ef54bbd03c1a1b9c4427eebd',
      '8fe61eb6ba76fe8aa81ad3ffe031f77f92e91b2ec8c4170b6fb61777f8e50657',
      '28bb62577a27016c25f3c9315c60a70343e5934b19d6b7e260224808ce539571',
      '010a4f63868801fcb5e3629fe79f5be1490df22e190605e20e631710be241055',
    ],
  },
  {
    name: '600,000 zero bytes',
    format: 2,
    bytes: () => Buffer.alloc(600_000),
    fileId: '1358f4ce65f0d1ed482d572e4eac6ea90d465c0ab878f477297474f8f23226c3',
    lengths: [131072, 131072, 131072, 131072, 75712],
    chunkIds: [
      'fa43239bcee7b97ca62f007cc68487560a39e19f74f3dde7486db3f98df8e471',
      'fa43239bcee7b97ca62f007cc68487560a39e19f74f3dde7486db3f98df8e471',
      'fa43239bcee7b97ca62f007cc68487560a39e19f74f3dde7486db3f98df8e471',
      'fa43239bcee7b97ca62f007cc68487560a39e19f74f3dde7486db3f98df8e471',
      '7b2f04e83023d52cfd751171662cad5bcc30c73ca9a0c5b5ec2f438a6af7f747',
    ],
  },
];

describe.each(VECTORS)('archive format $format vector: $name', (vector) => {
  const bytes = vector.bytes();

  it('has the recorded content hash', () => {
    expect(hex(bytes)).toBe(vector.fileId);
  });

  it('is cut at the recorded boundaries into the recorded chunk ids', () => {
    const chunks = splitChunks(bytes, CHUNKINGS[vector.format]);
    expect(chunks.map((c) => c.length)).toEqual(vector.lengths);
    expect(chunks.map(hex)).toEqual(vector.chunkIds);
  });

  it('is stored under the recorded keys, with the recorded file index', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from(`dbtattic-archive ${vector.format}\n`));
    const put = await putBlob(await openArchiveOn(backend, false), bytes);
    expect(put.id).toBe(vector.fileId);
    const chunkKeys = [...new Set(vector.chunkIds)].map((id) => `chunks/${id.slice(0, 2)}/${id.slice(2)}`).sort();
    expect((await backend.list('chunks/')).map((k) => k.key).sort()).toEqual(chunkKeys);
    const fileKey = `files/${vector.fileId.slice(0, 2)}/${vector.fileId.slice(2)}`;
    expect((await backend.list('files/')).map((k) => k.key)).toEqual([fileKey]);
    const index = (await gunzip((await backend.get(fileKey))!)).toString('utf8');
    const pairs = vector.chunkIds.map((id, i) => `["${id}",${vector.lengths[i]}]`).join(',');
    expect(index).toBe(`{"format":1,"size":${bytes.length},"chunks":[${pairs}]}`);
    for (const [i, id] of vector.chunkIds.entries()) {
      // Format 1 stores chunks gzipped, format 2 with brotli (docs/archive-format.md).
      const stored = (await backend.get(`chunks/${id.slice(0, 2)}/${id.slice(2)}`))!;
      expect(stored[0] === 0x1f && stored[1] === 0x8b).toBe(vector.format === 1);
      const chunk = await (vector.format === 1 ? gunzip : unbrotli)(stored);
      expect(hex(chunk)).toBe(id);
      expect(chunk.length).toBe(vector.lengths[i]);
    }
    expect((await readBlob(backend, put.id)).equals(bytes)).toBe(true);
  });
});

describe('archive format vector: the records of one capture', () => {
  const MANIFEST = `${JSON.stringify({
    metadata: {
      dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v12.json',
      dbt_version: '1.9.4',
      generated_at: '2025-03-04T05:06:07.123456Z',
      invocation_id: 'kat/inv 1',
      adapter_type: 'postgres',
    },
    nodes: {},
    sources: {},
    macros: {},
  })}\n`;
  const MANIFEST_ID = '26010715e67d0e56a2020eae539b90cb89ac745db34d516ff28fd6b878b5f206';

  it('writes FORMAT, the artifact record and the capture record byte for byte', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-kat-'));
    const target = path.join(root, 'target');
    const archiveDir = path.join(root, 'archive');
    mkdirSync(target);
    writeFileSync(path.join(target, 'manifest.json'), MANIFEST);
    expect(hex(Buffer.from(MANIFEST))).toBe(MANIFEST_ID);
    const backend = await openArchive(archiveDir, { create: true });
    const now = new Date('2025-03-04T05:06:08.000Z');
    const { record } = await captureTarget(backend, { targetDir: target, artifacts: ['manifest'], phase: 'post', toolVersion: '9.9.9', branch: 'main', now });
    // The capture id's time part is fixed by `now`; only its 12 random hex digits vary.
    const captureId = record!.capture_id;
    expect(captureId).toMatch(/^001955f8c0a00-[0-9a-f]{12}$/);
    expect((await backend.get('FORMAT'))!.toString('utf8')).toBe(`${ARCHIVE_FORMAT}\n`);
    expect(ARCHIVE_FORMAT).toBe('dbtattic-archive 2');
    const recordKey = `records/invocations/kat%2Finv%201/manifest-${MANIFEST_ID}.json`;
    expect((await backend.get(recordKey))!.toString('utf8')).toBe(
      [
        '{',
        '  "kind": "artifact",',
        '  "format": 1,',
        '  "invocation_id": "kat/inv 1",',
        '  "invocation_id_source": "metadata",',
        '  "artifact": "manifest",',
        `  "sha256": "${MANIFEST_ID}",`,
        `  "size": ${Buffer.byteLength(MANIFEST)},`,
        '  "dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json",',
        '  "dbt_version": "1.9.4",',
        '  "generated_at": "2025-03-04T05:06:07.123456Z",',
        '  "captured_at": "2025-03-04T05:06:08.000Z",',
        `  "capture_id": "${captureId}",`,
        '  "phase": "post"',
        '}',
        '',
      ].join('\n'),
    );
    const capture = JSON.parse((await backend.get(`records/captures/${captureId}.json`))!.toString('utf8'));
    expect(Object.keys(capture)).toEqual(['kind', 'format', 'capture_id', 'phase', 'captured_at', 'tool_version', 'branch', 'context', 'run', 'artifacts']);
    expect(capture.artifacts).toEqual([
      {
        artifact: 'manifest',
        status: 'captured',
        path: path.join(target, 'manifest.json'),
        invocation_id: 'kat/inv 1',
        sha256: MANIFEST_ID,
        size: Buffer.byteLength(MANIFEST),
        stored_bytes: expect.any(Number),
      },
    ]);
  });
});

describe('an archive created in format 1', () => {
  it('goes on being cut as format 1 cuts, through capture and its writer lease', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-kat-'));
    const target = path.join(root, 'target');
    mkdirSync(target);
    mkdirSync(path.join(root, 'archive'));
    writeFileSync(path.join(root, 'archive', 'FORMAT'), 'dbtattic-archive 1\n');
    const metadata = {
      dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v12.json',
      dbt_version: '1.9.4',
      generated_at: '2025-03-04T05:06:07Z',
      invocation_id: 'kat-format-1',
    };
    const nodes = Object.fromEntries(
      Array.from({ length: 6000 }, (_, i) => [`model.kat.m${i}`, { raw_code: `select ${(i * 7919) % 1000} as n from t${i % 37}` }]),
    );
    const manifest = Buffer.from(JSON.stringify({ metadata, nodes, sources: {}, macros: {} }));
    writeFileSync(path.join(target, 'manifest.json'), manifest);
    const backend = await openArchive(path.join(root, 'archive'), { create: false });
    await captureTarget(backend, { targetDir: target, artifacts: ['manifest'], phase: 'post', toolVersion: 'test', branch: 'main' });
    const index = JSON.parse((await gunzip((await backend.get(`files/${hex(manifest).slice(0, 2)}/${hex(manifest).slice(2)}`))!)).toString('utf8'));
    const lengths = (index.chunks as [string, number][]).map(([, length]) => length);
    expect(lengths).toEqual(splitChunks(manifest, CHUNKINGS[1]).map((c) => c.length));
    expect(lengths).not.toEqual(splitChunks(manifest, CHUNKINGS[2]).map((c) => c.length));
  });
});

describe('an archive of format 2 holding chunks of format 1', () => {
  it('reads the gzipped chunks a transfer brings beside its own', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const old = manifestLike(12_000);
    await putBlob(await openArchiveOn(backend, false), old);
    await backend.delete('FORMAT');
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 2\n'));
    const archive = await openArchiveOn(backend, false);
    const edited = Buffer.concat([old.subarray(0, 300_000), Buffer.from('{"unique_id": "model.kat.new"},\n'), old.subarray(300_000)]);
    await putBlob(archive, edited);
    const stored = await Promise.all((await backend.list('chunks/')).map(async (k) => (await backend.get(k.key))!));
    expect(stored.some((c) => c[0] === 0x1f && c[1] === 0x8b)).toBe(true);
    expect(stored.some((c) => !(c[0] === 0x1f && c[1] === 0x8b))).toBe(true);
    expect((await readBlob(archive, hex(old))).equals(old)).toBe(true);
    expect((await readBlob(archive, hex(edited))).equals(edited)).toBe(true);
  });
});
