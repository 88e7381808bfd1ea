import { describe, expect, it } from 'vitest';
import {
  artifactRecordKey,
  captureRecordKey,
  chunkKey,
  fileKey,
  headEntriesPrefix,
  headEntryKey,
  idOfObjectKey,
  invocationIdProblem,
  journalKey,
  keySegment,
  outputRecordKey,
  refKey,
  refNameOfKey,
} from '../../../src/archive/layout.js';

/** The keys docs/archive-format.md writes out, written out again here by hand. */
const ID = `ab${'c'.repeat(62)}`;
const SHA = '0123456789abcdef'.repeat(4);

describe('archive keys, as README documents them', () => {
  it('fans objects out by the first two hex digits of their id', () => {
    expect(chunkKey(ID)).toBe(`chunks/ab/${'c'.repeat(62)}`);
    expect(fileKey(ID)).toBe(`files/ab/${'c'.repeat(62)}`);
  });

  it('files records under records/, invocation ids percent-encoded as one segment', () => {
    expect(artifactRecordKey('5eb1c0de-0000-4000-8000-000000000001', 'manifest', SHA)).toBe(
      `records/invocations/5eb1c0de-0000-4000-8000-000000000001/manifest-${SHA}.json`,
    );
    expect(artifactRecordKey('a/b c', 'run_results', SHA)).toBe(`records/invocations/a%2Fb%20c/run_results-${SHA}.json`);
    expect(outputRecordKey('inv', 'sql', SHA)).toBe(`records/outputs/inv/sql-${SHA}.json`);
    expect(captureRecordKey('0195f3a1b2c3d-0123456789ab')).toBe('records/captures/0195f3a1b2c3d-0123456789ab.json');
    expect(journalKey('0195f3a1b2c3d-0123456789ab')).toBe('records/journal/0195f3a1b2c3d-0123456789ab.json');
  });

  it('never lets a segment be . or .. (a path step)', () => {
    expect(keySegment('.')).toBe('%2E');
    expect(keySegment('..')).toBe('%2E%2E');
    expect(keySegment('a.b')).toBe('a.b');
    expect(keySegment('...')).toBe('...');
  });

  it('names a branch head by its percent-encoded name in one segment, dots included', () => {
    expect(refKey('branches', 'feature/x.y')).toBe('refs/branches/feature%2Fx%2Ey');
    expect(refNameOfKey('branches', 'refs/branches/feature%2Fx%2Ey')).toBe('feature/x.y');
    expect(refNameOfKey('branches', 'refs/other/feature')).toBeUndefined();
    expect(headEntriesPrefix('feature/x.y')).toBe('refs/branch-heads/feature%2Fx%2Ey/');
    expect(headEntryKey('main', '0195f3a1b2c3d-0123456789ab')).toBe('refs/branch-heads/main/0195f3a1b2c3d-0123456789ab');
  });

  it('reads an object id back out of a chunk or file key, and nothing else', () => {
    expect(idOfObjectKey(`chunks/ab/${'c'.repeat(62)}`, 'chunks/')).toBe(ID);
    expect(idOfObjectKey(`files/ab/${'c'.repeat(62)}`, 'chunks/')).toBeUndefined();
    expect(idOfObjectKey(`chunks/abc${'c'.repeat(62)}`, 'chunks/')).toBeUndefined();
    expect(idOfObjectKey(`chunks/ab/${'C'.repeat(62)}`, 'chunks/')).toBeUndefined();
    expect(idOfObjectKey(`chunks/ab/${'c'.repeat(61)}`, 'chunks/')).toBeUndefined();
    expect(idOfObjectKey(`chunks/ab/${'c'.repeat(62)}x`, 'chunks/')).toBeUndefined();
    // A prefix of the same length that is not the one asked for; and hex only at the end.
    expect(idOfObjectKey(`chunkz/ab/${'c'.repeat(62)}`, 'chunks/')).toBeUndefined();
    expect(idOfObjectKey(`chunks/Xa/${'c'.repeat(63)}`, 'chunks/')).toBeUndefined();
  });
});

describe('which invocation ids can name a directory', () => {
  it('takes a UUID, and anything up to 200 characters once encoded', () => {
    expect(invocationIdProblem('5eb1c0de-0000-4000-8000-000000000001')).toBeNull();
    expect(invocationIdProblem('x'.repeat(200))).toBeNull();
  });

  it('refuses an empty or blank id, and one over 200 characters once encoded, saying the lengths', () => {
    expect(invocationIdProblem('')).toBe('its metadata.invocation_id is empty');
    expect(invocationIdProblem('  ')).toBe('its metadata.invocation_id is empty');
    expect(invocationIdProblem('x'.repeat(201))).toBe('its metadata.invocation_id is 201 characters long (201 once encoded as a file name; at most 200)');
    // 67 slashes are 201 characters once encoded (%2F each).
    expect(invocationIdProblem('/'.repeat(67))).toBe('its metadata.invocation_id is 67 characters long (201 once encoded as a file name; at most 200)');
  });
});
