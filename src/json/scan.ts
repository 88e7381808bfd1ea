/**
 * A byte-level JSON scanner. It walks a document without building it, so that
 * - capture can check a 500 MB artifact is complete and read its small `metadata` member, and
 * - extract can parse a manifest node by node (V8 cannot hold a string over ~512 MB, so such a
 *   manifest cannot go through one JSON.parse).
 * Strings are skipped with Buffer.indexOf, which is native and fast; most of an artifact's
 * bytes are inside strings (raw and compiled SQL).
 */

import { BytesMemo } from './bytes-memo.js';

const SCAN_FAILURES = { truncated: 'truncated JSON', syntax: 'invalid JSON', limit: 'JSON beyond what dbtattic reads' } as const;

export class JsonScanError extends Error {
  constructor(
    readonly reason: 'truncated' | 'syntax' | 'limit',
    readonly offset: number,
    detail: string,
  ) {
    super(`${SCAN_FAILURES[reason]} at byte ${offset}: ${detail}`);
    this.name = 'JsonScanError';
  }
}

/** One member of an object: its key and the byte range [start, end) of its value. */
export interface JsonMember {
  key: string;
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(buf: Uint8Array, pos: number, end: number): number {
  while (pos < end && isSpace(buf[pos])) pos++;
  return pos;
}

/** Returns the offset just past the closing quote of the string that opens at `pos`. */
function skipString(buf: Buffer, pos: number, end: number): number {
  let at = pos + 1;
  for (;;) {
    const quote = buf.indexOf(QUOTE, at);
    if (quote === -1 || quote >= end) throw new JsonScanError('truncated', end, 'unterminated string');
    let slashes = 0;
    while (buf[quote - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

function isScalarByte(byte: number): boolean {
  // digits, letters (true/false/null, exponents), sign and decimal point
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a) || byte === 0x2b || byte === 0x2d || byte === 0x2e;
}

/**
 * Returns the offset just past the value that starts at `pos` (after any whitespace).
 * Containers are walked with an explicit stack so deep nesting cannot overflow ours.
 */
export function skipValue(buf: Buffer, pos: number, end: number = buf.length, depth = 0): number {
  pos = skipSpace(buf, pos, end);
  if (pos >= end) throw new JsonScanError('truncated', pos, 'expected a value');
  const first = buf[pos]!;
  if (first === QUOTE) return skipString(buf, pos, end);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return skipScalar(buf, pos, end);
  return skipContainer(buf, pos, end, depth);
}

function skipScalar(buf: Buffer, pos: number, end: number): number {
  const start = pos;
  while (pos < end && isScalarByte(buf[pos]!)) pos++;
  if (pos === start) throw new JsonScanError('syntax', pos, `unexpected byte 0x${buf[pos]!.toString(16)}`);
  return pos;
}

/**
 * Deeper nesting is refused: everything downstream (canonical JSON, fingerprints, views) walks
 * values recursively, and an input that controls that depth controls our stack. dbt's values
 * nest a handful of levels; Python's json, which writes them, gives up near 1000.
 */
export const MAX_JSON_DEPTH = 256;

/** `depth`: how many containers around the one at `pos` the limit counts already. */
function skipContainer(buf: Buffer, pos: number, end: number, depth: number): number {
  const stack: number[] = [];
  const limit = MAX_JSON_DEPTH - depth;
  while (pos < end) {
    const byte = buf[pos]!;
    if (byte === QUOTE) {
      pos = skipString(buf, pos, end);
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      stack.push(byte === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET);
      if (stack.length > limit) throw new JsonScanError('limit', pos, `nested more than ${MAX_JSON_DEPTH} levels deep`);
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (stack.pop() !== byte) throw new JsonScanError('syntax', pos, 'mismatched bracket');
      if (stack.length === 0) return pos + 1;
    } else if (!isSpace(byte) && byte !== COLON && byte !== COMMA && !isScalarByte(byte)) {
      throw new JsonScanError('syntax', pos, `unexpected byte 0x${byte.toString(16)}`);
    }
    pos++;
  }
  throw new JsonScanError('truncated', end, `${stack.length} unclosed ${stack.length === 1 ? 'bracket' : 'brackets'}`);
}

/**
 * The key whose quoted string spans [start, end). Keys are read by the ten thousand (one per
 * node, per parent-map entry): one without escapes or control characters is its bytes, and only
 * the others go through JSON.parse, which also refuses what JSON does not allow in a string.
 */
function keyAt(buf: Buffer, start: number, end: number): string {
  for (let i = start + 1; i < end - 1; i++) {
    const byte = buf[i]!;
    if (byte === BACKSLASH || byte < 0x20) return JSON.parse(buf.toString('utf8', start, end)) as string;
  }
  return buf.toString('utf8', start + 1, end - 1);
}

/**
 * Where a document's first value may start: past a UTF-8 byte order mark, which dbt's readers
 * (Python's json with utf-8-sig, orjson after decoding) accept and some editors write.
 */
export function documentStart(buf: Uint8Array): number {
  return buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
}

/**
 * Yields the members of the object that opens at `pos`, lazily: a caller that wants only the
 * first member stops after reading it.
 */
export function objectMembers(buf: Buffer, pos = documentStart(buf), end: number = buf.length): Generator<JsonMember> {
  return membersFrom(buf, pos, end, skipValue);
}

/** Skips the value that starts at `start`; returns the offset just past it. */
type ValueSkipper = (buf: Buffer, start: number, end: number) => number;

function* membersFrom(buf: Buffer, pos: number, end: number, skip: ValueSkipper): Generator<JsonMember> {
  pos = skipSpace(buf, pos, end);
  if (buf[pos] !== OPEN_BRACE) {
    throw new JsonScanError(pos >= end ? 'truncated' : 'syntax', pos, 'expected an object');
  }
  pos = skipSpace(buf, pos + 1, end);
  if (buf[pos] === CLOSE_BRACE) return;
  for (;;) {
    if (pos >= end) throw new JsonScanError('truncated', pos, 'expected a key');
    if (buf[pos] !== QUOTE) throw new JsonScanError('syntax', pos, 'expected a key');
    const keyEnd = skipString(buf, pos, end);
    const key = keyAt(buf, pos, keyEnd);
    pos = skipSpace(buf, keyEnd, end);
    if (buf[pos] !== COLON) throw new JsonScanError(pos >= end ? 'truncated' : 'syntax', pos, "expected ':'");
    const start = skipSpace(buf, pos + 1, end);
    const valueEnd = skip(buf, start, end);
    yield { key, start, end: valueEnd };
    pos = skipSpace(buf, valueEnd, end);
    if (buf[pos] === CLOSE_BRACE) return;
    if (buf[pos] !== COMMA) throw new JsonScanError(pos >= end ? 'truncated' : 'syntax', pos, "expected ',' or '}'");
    pos = skipSpace(buf, pos + 1, end);
  }
}

/** Parses one member's value. */
export function parseMember(buf: Buffer, member: JsonMember): unknown {
  return JSON.parse(buf.toString('utf8', member.start, member.end));
}

/**
 * Checks that `buf` holds one complete JSON object and nothing after it, and returns its
 * top-level members. Kept with large documents' bytes (bytes-memo.ts): each walk of a 50 MB
 * manifest visits every byte, and capture's check and ingest's reading walked it each.
 */
export function scanDocument(buf: Buffer): JsonMember[] {
  return scanned(buf).members;
}

/**
 * The members of a top-level member whose value is an object (a manifest's `nodes`), as the
 * scan of the whole document found them; undefined for any other range, or when the document
 * is too small to be kept. The check of the whole document walks every node anyway: recording
 * where each one lies spares ingest a second walk of the same 50 MB.
 */
export function sectionMembers(buf: Buffer, section: { start: number; end: number }): readonly JsonMember[] | undefined {
  const held = scans.get(buf)?.sections.get(section.start);
  return held && held.end === section.end ? held.members : undefined;
}

interface ScannedDocument {
  members: JsonMember[];
  sections: Map<number, { end: number; members: JsonMember[] }>;
}

const scans = new BytesMemo<ScannedDocument>();

function scanned(buf: Buffer): ScannedDocument {
  const held = scans.get(buf);
  if (held) return held;
  const document = scanWhole(buf);
  scans.set(buf, document);
  return document;
}

function scanWhole(buf: Buffer): ScannedDocument {
  const sections: ScannedDocument['sections'] = new Map();
  const recordSection: ValueSkipper = (b, start, end) => {
    if (b[start] !== OPEN_BRACE) return skipValue(b, start, end);
    const members = [...membersFrom(b, start, end, (v, from, to) => skipValue(v, from, to, 1))];
    const close = skipSpace(b, members.length ? members[members.length - 1]!.end : start + 1, end) + 1;
    sections.set(start, { end: close, members });
    return close;
  };
  const members = [...membersFrom(buf, documentStart(buf), buf.length, recordSection)];
  let close = members.length ? members[members.length - 1]!.end : 0;
  close = buf.indexOf(CLOSE_BRACE, close);
  const rest = skipSpace(buf, close + 1, buf.length);
  if (close === -1) throw new JsonScanError('truncated', buf.length, 'missing closing brace');
  if (rest < buf.length) throw new JsonScanError('syntax', rest, 'data after the end of the document');
  return { members, sections };
}
