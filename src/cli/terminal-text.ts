/**
 * Artifacts are other people's text: an invocation id, a target name or a result message may
 * hold ESC sequences that set a terminal's title, clear its screen or rewrite what was printed.
 * Human output shows such characters as `\u001b` instead of sending them. The `\uXXXX` form keeps
 * JSON output meaning the same, should a C1 character (which JSON.stringify leaves raw) pass.
 */

/** C0 controls but tab and newline, DEL, and C1 controls (0x9b is a one-byte CSI to some terminals). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function escapeControls(text: string): string {
  return text.replace(CONTROLS, visible);
}

/**
 * For a terminal: everything escaped but colours (SGR, `ESC[…m`, which chalk writes) and, at
 * the very start of a write only, the carriage return and erase-line with which progress.ts
 * redraws its line. Colour from an artifact gets through; nothing that moves the cursor does.
 */
const COLOUR = /\u001b\[[0-9;]*m/y;
const REDRAW = /^\r(\u001b\[K)?/;

export function escapeForTerminal(text: string): string {
  const redraw = REDRAW.exec(text)?.[0] ?? '';
  let out = redraw;
  let last = redraw.length;
  for (let i = last; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!(code < 0x20 || (code >= 0x7f && code <= 0x9f)) || code === 0x09 || code === 0x0a) continue;
    COLOUR.lastIndex = i;
    const ours = COLOUR.exec(text);
    out += text.slice(last, i);
    if (ours) {
      out += ours[0];
      i += ours[0].length - 1;
    } else out += visible(text[i]!);
    last = i + 1;
  }
  return out + text.slice(last);
}

function visible(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
