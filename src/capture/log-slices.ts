/**
 * Splits dbt's log file into the slices of the invocations that wrote it, byte for byte.
 * dbt (dbt_common's logger) appends every invocation to one file, in one of two line formats:
 * - JSON: one object a line, `info.invocation_id` naming its invocation;
 * - text ("debug", the file default): an invocation opens with two empty lines and the banner
 *   `============================== HH:MM:SS.ffffff | <invocation_id> ==============================`
 *   before "Running with dbt=…"; every text line after it is that invocation's, to the next banner.
 * A text line before any banner (its banner rotated out of the oldest file) has no owner and is left out.
 * Pure: bytes in, slices out.
 */
export interface LogSlice {
  invocationId: string;
  bytes: Buffer;
  lines: number;
  format: 'json' | 'text' | 'mixed';
  /** Where its first line (a blank before its banner, for text) starts in the bytes sliced. */
  start: number;
}

const BANNER = /^={30} \S+ \| (\S+) ={30}\r?\n?$/;

export function sliceLog(log: Buffer): LogSlice[] {
  const parts = new Map<string, { chunks: Buffer[]; lines: number; json: boolean; text: boolean; start: number }>();
  const add = (id: string, line: Buffer, json: boolean): void => {
    const slice = parts.get(id) ?? parts.set(id, { chunks: [], lines: 0, json: false, text: false, start: line.byteOffset - log.byteOffset }).get(id)!;
    slice.chunks.push(line);
    slice.lines++;
    if (json) slice.json = true;
    else slice.text = true;
  };
  let current: string | null = null;
  let blanks: Buffer[] = [];
  const flushBlanks = (to: string | null): void => {
    if (to !== null) for (const blank of blanks) add(to, blank, false);
    blanks = [];
  };
  for (const line of splitLines(log)) {
    const jsonId = line[0] === 0x7b ? jsonInvocationId(line) : null;
    if (jsonId !== null) {
      add(jsonId, line, true);
      continue;
    }
    const text = line.toString('utf8');
    if (text === '\n' || text === '\r\n') {
      blanks.push(line);
      continue;
    }
    const banner = BANNER.exec(text);
    if (banner) current = banner[1]!;
    flushBlanks(current);
    if (current !== null) add(current, line, false);
  }
  flushBlanks(current);
  return [...parts.entries()].map(([invocationId, p]) => ({
    invocationId,
    bytes: Buffer.concat(p.chunks),
    lines: p.lines,
    format: p.json && p.text ? 'mixed' : p.json ? 'json' : 'text',
    start: p.start,
  }));
}

/** Lines with their terminators, so that the slices concatenate to exactly what dbt wrote. */
function* splitLines(log: Buffer): Generator<Buffer> {
  let start = 0;
  while (start < log.length) {
    const end = log.indexOf(0x0a, start);
    const stop = end < 0 ? log.length : end + 1;
    yield log.subarray(start, stop);
    start = stop;
  }
}

function jsonInvocationId(line: Buffer): string | null {
  try {
    const parsed = JSON.parse(line.toString('utf8')) as { info?: { invocation_id?: unknown } };
    return typeof parsed.info?.invocation_id === 'string' ? parsed.info.invocation_id : null;
  } catch {
    return null;
  }
}
