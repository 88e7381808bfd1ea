import { describe, expect, it } from 'vitest';
import { escapeControls, escapeForTerminal } from '../../../src/cli/terminal-text.js';

const TITLE = '\u001b]0;owned\u0007';
const CLEAR = '\u001b[2J\u001b[H';

describe('text from artifacts on a terminal', () => {
  it('cannot set the title, clear the screen or return the cursor', () => {
    const shown = escapeForTerminal(`model ${TITLE}${CLEAR} done\u009b2J`);
    expect(shown).toBe('model \\u001b]0;owned\\u0007\\u001b[2J\\u001b[H done\\u009b2J');
  });

  it('keeps our own colours, newlines, tabs and the progress line', () => {
    const ours = '\r\u001b[Kbuilding 3/4 \u001b[31merror:\u001b[39m a\tb\n';
    expect(escapeForTerminal(ours)).toBe(ours);
    expect(escapeForTerminal('message\rspoofed\u001b[K')).toBe('message\\u000dspoofed\\u001b[K');
  });

  it('escapes controls in data output, leaving tabs and newlines to the caller', () => {
    expect(escapeControls(`a\tb\n${TITLE}`)).toBe('a\tb\n\\u001b]0;owned\\u0007');
  });
});
