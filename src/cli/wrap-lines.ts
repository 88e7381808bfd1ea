import type { CliIo } from './io.js';
import { visibleWidth, wordsOf, wrapUnits } from './wrap-text.js';

/**
 * For the commands that print `field   value` lines (inspect, diff, info, verify): on a
 * terminal, a line wider than it wraps, its continuation under where the value starts, as a
 * table's cell would. Data (query, show, state's path) is never wrapped: it is copied as it is.
 */
export function wrappingIo(io: CliIo): CliIo {
  if (!io.isTTY || io.columns <= 0) return io;
  return { ...io, stdout: (text) => io.stdout(wrapLongLines(text, io.columns)) };
}

/**
 * Talk on stderr, on the terminal that stdout is: a note wider than it wraps. A progress line
 * (a redraw, `\r…`) is left alone.
 */
export function wrappingTalk(io: CliIo): CliIo {
  if (!io.isTTY || io.columns <= 0) return io;
  return { ...io, stderr: (text) => io.stderr(text.startsWith('\r') ? text : wrapLongLines(text, io.columns)) };
}

export function wrapLongLines(text: string, columns: number): string {
  if (columns <= 0) return text;
  return text
    .split('\n')
    .map((line) => (visibleWidth(line) <= columns ? line : hang(line, columns)))
    .join('\n');
}

/** A field's name ends at a run of two spaces or more; a line without one hangs under its indent. */
const FIELD = /^(\s*\S(?:\S| (?=\S))*\s{2,}|\s*)/;

function hang(line: string, columns: number): string {
  let prefix = FIELD.exec(line)![0];
  // Past half the terminal, the value would be a thin column: it goes under the indent instead.
  if (visibleWidth(prefix) > columns / 2) prefix = /^\s*/.exec(line)![0];
  const indent = Math.min(visibleWidth(prefix) + (prefix.trim() === '' ? 2 : 0), Math.floor(columns / 2));
  const lines = wrapUnits(wordsOf(line.slice(prefix.length)), columns - indent);
  return lines.map((text, n) => (n === 0 ? prefix : ' '.repeat(indent)) + text).join('\n');
}
