import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCb } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { splitChunks } from '../../../src/archive/chunking.js';
import { ARCHIVE_FORMAT, openArchive, putBlob, readBlob } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';

const gunzip = promisify(gunzipCb);

/**
 * Known-answer vectors for the archive format (README, "Archive format"). The inputs are made
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
  bytes: () => Buffer;
  fileId: string;
  lengths: number[];
  chunkIds: string[];
}

const VECTORS: Vector[] = [
  {
    name: '1,000,000 pseudo-random bytes',
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
    bytes: () => Buffer.alloc(600_000),
    fileId: '1358f4ce65f0d1ed482d572e4eac6ea90d465c0ab878f477297474f8f23226c3',
    lengths: [262144, 262144, 75712],
    chunkIds: [
      '8a39d2abd3999ab73c34db2476849cddf303ce389b35826850f9a700589b4a90',
      '8a39d2abd3999ab73c34db2476849cddf303ce389b35826850f9a700589b4a90',
      '7b2f04e83023d52cfd751171662cad5bcc30c73ca9a0c5b5ec2f438a6af7f747',
    ],
  },
];

describe.each(VECTORS)('archive format vector: $name', (vector) => {
  const bytes = vector.bytes();

  it('has the recorded content hash', () => {
    expect(hex(bytes)).toBe(vector.fileId);
  });

  it('is cut at the recorded boundaries into the recorded chunk ids', () => {
    const chunks = splitChunks(bytes);
    expect(chunks.map((c) => c.length)).toEqual(vector.lengths);
    expect(chunks.map(hex)).toEqual(vector.chunkIds);
  });

  it('is stored under the recorded keys, with the recorded file index', async () => {
    const backend = new MemBackend();
    const put = await putBlob(backend, bytes);
    expect(put.id).toBe(vector.fileId);
    const chunkKeys = [...new Set(vector.chunkIds)].map((id) => `chunks/${id.slice(0, 2)}/${id.slice(2)}`).sort();
    expect((await backend.list('chunks/')).map((k) => k.key).sort()).toEqual(chunkKeys);
    const fileKey = `files/${vector.fileId.slice(0, 2)}/${vector.fileId.slice(2)}`;
    expect((await backend.list('files/')).map((k) => k.key)).toEqual([fileKey]);
    const index = (await gunzip((await backend.get(fileKey))!)).toString('utf8');
    const pairs = vector.chunkIds.map((id, i) => `["${id}",${vector.lengths[i]}]`).join(',');
    expect(index).toBe(`{"format":1,"size":${bytes.length},"chunks":[${pairs}]}`);
    for (const [i, id] of vector.chunkIds.entries()) {
      const chunk = await gunzip((await backend.get(`chunks/${id.slice(0, 2)}/${id.slice(2)}`))!);
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
    expect(ARCHIVE_FORMAT).toBe('dbtattic-archive 1');
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
      { artifact: 'manifest', status: 'captured', path: path.join(target, 'manifest.json'), invocation_id: 'kat/inv 1', sha256: MANIFEST_ID, size: Buffer.byteLength(MANIFEST), stored_bytes: expect.any(Number) },
    ]);
  });
});
