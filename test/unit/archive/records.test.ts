import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { FsBackend } from '../../../src/archive/backends/fs.js';
import {
  archiveFormatOn,
  backendFor,
  checkBranchName,
  listArtifactRecords,
  listCaptureRecords,
  listInvocationRecords,
  openArchive,
  parseArtifactRecord,
  parseCaptureRecord,
  redactUrl,
  updateRef,
  type ArtifactRecord,
} from '../../../src/archive/index.js';
import { idOfObjectKey, keySegment, refKey, refNameOfKey } from '../../../src/archive/layout.js';
import { isAtticError } from '../../../src/errors.js';

/** Records, keys and the opening of an archive: each rule docs/archive-format.md states. */
const RECORD: ArtifactRecord = {
  kind: 'artifact',
  format: 1,
  invocation_id: 'inv',
  invocation_id_source: 'metadata',
  artifact: 'manifest',
  sha256: 'a'.repeat(64),
  size: 3,
  dbt_schema_version: 'v12',
  dbt_version: '1.9.4',
  generated_at: '2026-01-02T03:04:05Z',
  captured_at: '2026-01-02T04:00:00.000Z',
  capture_id: 'c1',
  phase: 'post',
};
const bytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

function refusal(work: () => unknown): { code: string; message: string } {
  try {
    work();
  } catch (error) {
    if (isAtticError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseArtifactRecord', () => {
  it('reads every field, and null for optional ones that are absent', () => {
    expect(parseArtifactRecord('k', bytes(RECORD))).toEqual(RECORD);
    const { dbt_schema_version: _a, dbt_version: _b, generated_at: _c, ...bare } = RECORD;
    expect(parseArtifactRecord('k', bytes(bare))).toEqual({ ...RECORD, dbt_schema_version: null, dbt_version: null, generated_at: null });
  });

  it.each([
    ['it is not an artifact record', { ...RECORD, kind: 'capture' }],
    ["unknown artifact type 'profiles'", { ...RECORD, artifact: 'profiles' }],
    ["'invocation_id' is not a string", { ...RECORD, invocation_id: 5 }],
    ["'size' is not a number", { ...RECORD, size: '3' }],
    ["unknown invocation_id_source 'guess'", { ...RECORD, invocation_id_source: 'guess' }],
    ["unknown phase 'during'", { ...RECORD, phase: 'during' }],
    ['it is not valid JSON', [RECORD]],
    ['it is not valid JSON', null],
  ])('refuses a record: %s', (why, value) => {
    expect(refusal(() => parseArtifactRecord('records/x.json', bytes(value)))).toEqual({
      code: 'archive-damaged',
      message: `Record records/x.json is unreadable: ${why}. Run 'dbtattic verify'.`,
    });
  });

  it('refuses bytes that are not JSON', () => {
    expect(refusal(() => parseArtifactRecord('k', Buffer.from('{'))).message).toContain('it is not valid JSON');
  });
});

describe('parseCaptureRecord', () => {
  const capture = {
    kind: 'capture',
    format: 1,
    capture_id: 'c1',
    phase: 'manual',
    captured_at: 't',
    tool_version: '1',
    branch: 'main',
    context: { git: {} },
    run: null,
    artifacts: [],
  };

  it('reads a capture record, with an empty context when it holds none, and its run', () => {
    expect(parseCaptureRecord('k', bytes(capture))).toEqual(capture);
    const run = { argv: ['dbt'], started_at: 'a', ended_at: 'b', exit_code: 0, signal: null };
    expect(parseCaptureRecord('k', bytes({ ...capture, context: [1], branch: 3, run })).context).toEqual({});
    expect(parseCaptureRecord('k', bytes({ ...capture, context: null, run })).run).toEqual(run);
    expect(parseCaptureRecord('k', bytes({ ...capture, branch: 3 })).branch).toBeNull();
  });

  it.each([[{ ...capture, kind: 'artifact' }], [{ ...capture, artifacts: {} }]])('refuses one that is not a capture record (%#)', (value) => {
    expect(refusal(() => parseCaptureRecord('k', bytes(value))).message).toBe("Record k is unreadable: it is not a capture record. Run 'dbtattic verify'.");
  });
});

describe('listing records', () => {
  it("lists artifact and capture records, ignoring what is not .json, captures in id order, an invocation's newest capture first", async () => {
    const backend = new MemBackend();
    const later = { ...RECORD, sha256: 'b'.repeat(64), captured_at: '2026-01-02T05:00:00.000Z' };
    await backend.putIfAbsent(`records/invocations/inv/manifest-${RECORD.sha256}.json`, bytes(RECORD));
    await backend.putIfAbsent(`records/invocations/inv/manifest-${later.sha256}.json`, bytes(later));
    await backend.putIfAbsent(`records/invocations/other/manifest-${RECORD.sha256}.json`, bytes({ ...RECORD, invocation_id: 'other' }));
    await backend.putIfAbsent('records/invocations/inv/.tmp-123', Buffer.from('half'));
    const capture = (id: string) => ({
      kind: 'capture',
      format: 1,
      capture_id: id,
      phase: 'pre',
      captured_at: 't',
      tool_version: '1',
      branch: null,
      context: {},
      run: null,
      artifacts: [],
    });
    await backend.putIfAbsent('records/captures/0002.json', bytes(capture('0002')));
    await backend.putIfAbsent('records/captures/0001.json', bytes(capture('0001')));
    await backend.putIfAbsent('records/captures/0003.json.tmp-1', Buffer.from('half'));
    expect((await listArtifactRecords(backend)).length).toBe(3);
    expect((await listCaptureRecords(backend)).map((c) => c.capture_id)).toEqual(['0001', '0002']);
    expect((await listInvocationRecords(backend, 'inv')).map((r) => r.sha256)).toEqual([later.sha256, RECORD.sha256]);
  });
});

describe('keys', () => {
  it('percent-encodes segments taken from artifacts, and never yields . or ..', () => {
    expect(keySegment('a/b c')).toBe('a%2Fb%20c');
    expect(keySegment('.')).toBe('%2E');
    expect(keySegment('..')).toBe('%2E%2E');
    expect(keySegment('a.b')).toBe('a.b');
  });

  it('names refs as one segment, and reads names back', () => {
    expect(refKey('branches', 'feature/x.y')).toBe('refs/branches/feature%2Fx%2Ey');
    expect(refNameOfKey('branches', 'refs/branches/feature%2Fx%2Ey')).toBe('feature/x.y');
    expect(refNameOfKey('branches', 'refs/tags/v1')).toBeUndefined();
  });

  it('reads an object id back from its key, and nothing from any other key', () => {
    const id = 'ab'.padEnd(64, 'c');
    expect(idOfObjectKey(`chunks/ab/${id.slice(2)}`, 'chunks/')).toBe(id);
    expect(idOfObjectKey(`files/ab/${id.slice(2)}`, 'chunks/')).toBeUndefined();
    expect(idOfObjectKey(`chunks/abc${id.slice(3)}`, 'chunks/')).toBeUndefined();
    expect(idOfObjectKey(`chunks/AB/${id.slice(2).toUpperCase()}`, 'chunks/')).toBeUndefined();
    expect(idOfObjectKey(`chunks/ab/${id.slice(2)}x`, 'chunks/')).toBeUndefined();
  });

  it('takes branch names git would take, and refuses the rest', () => {
    for (const name of ['main', 'feature/x', 'release-1.2', 'a'.repeat(200)]) expect(checkBranchName(name)).toBe(name);
    for (const name of ['', 'a b', '-x', '/x', 'x/', 'a..b', 'x.lock', 'a:b', 'a~1', 'a'.repeat(201), 'tab\t']) {
      expect(refusal(() => checkBranchName(name))).toEqual({
        code: 'usage',
        message: `'${name}' is not a usable branch name (no spaces, '..', '~^:?*[\\', no '-' or '/' first, no '.lock' last).`,
      });
    }
  });
});

describe('opening an archive', () => {
  it('picks the backend by the location', () => {
    expect(backendFor('mem:')).toBeInstanceOf(MemBackend);
    expect(backendFor('mem:x')).toBeInstanceOf(MemBackend);
    expect(backendFor('file:///tmp/a').location).toBe(new FsBackend('/tmp/a').location);
    expect(backendFor('rel/dir').location).toBe(new FsBackend(path.resolve('rel/dir')).location);
    expect(refusal(() => backendFor('gs://user:secret@bucket/x'))).toEqual({
      code: 'config',
      message: "Archive location 'gs://bucket/x' uses a scheme dbtattic does not support. Use a local directory or s3://bucket/prefix.",
    });
    expect(redactUrl('https://u:p@host/x')).toBe('https://host/x');
    expect(redactUrl('/plain/path')).toBe('/plain/path');
  });

  it('writes FORMAT on first use, refuses a missing archive unless creating, and one of another format', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-open-'));
    await expect(openArchive(dir, { create: false })).rejects.toMatchObject({
      code: 'not-found',
      message: `No archive at ${dir}. Run 'dbtattic capture' in a dbt project first.`,
    });
    const backend = await openArchive(dir, { create: true });
    expect((await backend.get('FORMAT'))!.toString()).toBe('dbtattic-archive 2\n');
    expect(archiveFormatOn(await openArchive(dir, { create: false }))).toBe(2);
    // An archive of format 1 opens, and goes on being cut as format 1 cuts (chunking.ts).
    await backend.delete('FORMAT');
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    expect(archiveFormatOn(await openArchive(dir, { create: false }))).toBe(1);
    await backend.delete('FORMAT');
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 3\n'));
    await expect(openArchive(dir, { create: true })).rejects.toMatchObject({
      code: 'archive-format',
      message: `The archive at ${dir} has format 'dbtattic-archive 3', and this dbtattic reads 'dbtattic-archive 1' and 'dbtattic-archive 2'. Upgrade dbtattic.`,
    });
  });
});

describe('updateRef', () => {
  it('retries when the value changed under it, and gives up after 50 attempts', async () => {
    const backend = new MemBackend();
    let calls = 0;
    const value = await updateRef(backend, 'branches', 'main', (current) => {
      calls += 1;
      // Another writer moves the ref once, between our read and our swap.
      if (calls === 1) void backend.compareAndSwap(refKey('branches', 'main'), undefined, Buffer.from('theirs'));
      return `${current ?? 'none'}+ours`;
    });
    expect(value).toBe('theirs+ours');
    expect(calls).toBe(2);
    const busy = new MemBackend();
    let n = 0;
    const change = (): string => {
      n += 1;
      void busy.compareAndSwap(refKey('branches', 'main'), n === 1 ? undefined : Buffer.from(String(n - 1)), Buffer.from(String(n)));
      return 'mine';
    };
    await expect(updateRef(busy, 'branches', 'main', change)).rejects.toMatchObject({
      code: 'ref-conflict',
      message: "Ref 'main' kept changing under us after 50 attempts. Try again.",
    });
    expect(n).toBe(50);
  });
});
