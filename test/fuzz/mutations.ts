/**
 * Hostile variants of real artifacts, made from a seed so that a failure can be replayed:
 * truncations, byte flips, nesting and size bombs, and invocation ids no file name can hold.
 */

/** A small, seedable generator (mulberry32): the same seed, the same mutations. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Mutation = 'truncate' | 'flip' | 'depth' | 'size' | 'id';
export const MUTATIONS: readonly Mutation[] = ['truncate', 'flip', 'depth', 'size', 'id'];

const HOSTILE_IDS = ['', ' ', 'a'.repeat(10_000), '/'.repeat(100), '..', '.', '%2F..%2F', 'id\u001b]0;x\u0007', 'é'.repeat(80), '\u0000', 'ok/../../escape'];

export function mutate(bytes: Buffer, mutation: Mutation, random: () => number): Buffer {
  const at = (limit: number): number => Math.floor(random() * limit);
  switch (mutation) {
    case 'truncate':
      return bytes.subarray(0, at(bytes.length));
    case 'flip': {
      const copy = Buffer.from(bytes);
      for (let i = 0, n = 1 + at(8); i < n; i++) copy[at(copy.length)] = at(256);
      return copy;
    }
    case 'depth': {
      const levels = 200 + at(20_000);
      return insertMember(bytes, `${'['.repeat(levels)}1${random() < 0.8 ? ']'.repeat(levels) : ''}`, random);
    }
    case 'size':
      return insertMember(bytes, JSON.stringify('x'.repeat(1 + at(3_000_000))), random);
    case 'id': {
      const id = HOSTILE_IDS[at(HOSTILE_IDS.length)]!;
      return Buffer.from(bytes.toString('utf8').replace(/"invocation_id":\s*"[^"]*"/, `"invocation_id": ${JSON.stringify(id)}`));
    }
  }
}

/** Inserts `"fuzz": value` just inside a random `{` (one inside a string makes broken JSON: also a fine test). */
function insertMember(bytes: Buffer, value: string, random: () => number): Buffer {
  const text = bytes.toString('utf8');
  const braces: number[] = [];
  for (let i = text.indexOf('{'); i !== -1 && braces.length < 5_000; i = text.indexOf('{', i + 1)) braces.push(i);
  const at = braces[Math.floor(random() * braces.length)] ?? 0;
  const empty = /^\s*\}/.test(text.slice(at + 1, at + 64));
  return Buffer.from(`${text.slice(0, at + 1)}"fuzz": ${value}${empty ? '' : ','}${text.slice(at + 1)}`);
}
