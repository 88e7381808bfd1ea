/**
 * Text laid out for a terminal's columns: widths count what shows (our colours take none), and
 * lines break between words. A word wider than the line is broken within, never cut: what a
 * table shows of a message or a path is all of it.
 */

// eslint-disable-next-line no-control-regex
const COLOUR = /\u001b\[[0-9;]*m/g;

export function visibleWidth(text: string): number {
  return [...text.replace(COLOUR, '')].length;
}

/** The widest line of a cell. */
export function cellWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map(visibleWidth));
}

/** The widest word (or unit): how narrow a wrapped cell can be without breaking one. */
export function widestWord(units: readonly string[]): number {
  return Math.max(0, ...units.map(visibleWidth));
}

/** A cell's words: the units it may wrap between. */
export function wordsOf(text: string): string[] {
  return text.split(' ').filter((word) => word !== '');
}

/**
 * Lines of at most `width` columns, filled with `units` in order, a space apart. Each of the
 * text's own line breaks (a message's) starts a new line; a unit may hold spaces (`3 error`,
 * kept together).
 */
export function wrapUnits(units: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const unit of units) {
    for (const piece of breakWord(unit, width)) {
      if (line !== '' && visibleWidth(line) + 1 + visibleWidth(piece) <= width) line += ` ${piece}`;
      else {
        if (line !== '') lines.push(line);
        line = piece;
      }
    }
  }
  return [...lines, line];
}

/** A text wrapped at `width`, its own line breaks kept. */
export function wrapText(text: string, width: number): string[] {
  return text.split('\n').flatMap((paragraph) => wrapUnits(wordsOf(paragraph), width));
}

/** Pieces of at most `width` columns; a colour sequence is never split. */
function breakWord(word: string, width: number): string[] {
  if (visibleWidth(word) <= width) return [word];
  const pieces: string[] = [];
  let piece = '';
  let shown = 0;
  for (const token of word.split(/(\u001b\[[0-9;]*m)/)) {
    if (/^\u001b\[[0-9;]*m$/.test(token)) {
      piece += token;
      continue;
    }
    for (const char of token) {
      if (shown === width) {
        pieces.push(piece);
        piece = '';
        shown = 0;
      }
      piece += char;
      shown++;
    }
  }
  return [...pieces, piece];
}
