import type { CliAnswer } from './cli-call.js';

/** What a tool returns: the CLI's JSON under each key, or the CLI's own error message. */
export type ToolAnswer = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * Exit 1 is an answer with a warning (the archive is damaged, say) unless the command failed:
 * `query` stopped by its time limit also exits 1, after the rows it had streamed, with the error
 * document last. That error is the tool's answer; rows before it are only a part.
 */
export function readAnswers(answers: Record<string, CliAnswer>): ToolAnswer {
  const value: Record<string, unknown> = {};
  const truncated: Record<string, string> = {};
  for (const [key, answer] of Object.entries(answers)) {
    const parsed = parseJson(answer.stdout);
    const failed = answer.exitCode === 1 ? trailingError(answer.stdout) : null;
    if (failed) return { ok: false, message: failed };
    if (answer.exitCode !== 0 && answer.exitCode !== 1) return { ok: false, message: errorMessage(parsed, answer) };
    value[key] = parsed;
    const cut = limitNote(answer.stderr);
    if (cut) truncated[key] = cut;
  }
  return { ok: true, value: Object.keys(truncated).length > 0 ? { ...value, truncated } : value };
}

/**
 * The CLI says on stderr when a limit cut its list ("(showing the first 50 rows; raise --limit
 * for more)"), which an agent never sees: without it, the first rows pass for all of them.
 */
function limitNote(stderr: string): string | null {
  const line = stderr.split('\n').find((l) => /^\(showing the .*(--limit|--max-bytes).*\)$/.test(l.trim()));
  return line ? line.trim().slice(1, -1).replace('raise --limit', 'raise limit').replace('raise --max-bytes for more', 'the server answers no more at once: ask for fewer or shorter values') : null;
}

/**
 * The message of an error document that ends the output, as main.ts prints it with --json: a
 * top-level object, so its key sits at two spaces (streamed rows are indented further).
 */
function trailingError(stdout: string): string | null {
  const at = stdout.lastIndexOf('{\n  "error": {');
  if (at < 0) return null;
  const parsed = parseJson(stdout.slice(at));
  return parsed && typeof parsed === 'object' && 'error' in parsed ? errorMessage(parsed, { exitCode: 1, stdout, stderr: '' }) : null;
}

/** With --json the CLI prints errors as {"error": {"code", "message"}}; usage text goes to stderr. */
function errorMessage(parsed: unknown, answer: CliAnswer): string {
  if (parsed && typeof parsed === 'object' && 'error' in parsed) {
    const error = (parsed as { error: { message?: unknown } }).error;
    if (typeof error?.message === 'string') return error.message;
  }
  return answer.stderr.trim().replace(/^error:\s*/, '') || `dbtattic exited ${answer.exitCode}`;
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return null;
  try {
    return JSON.parse(trimmed);
  } catch {
    return trimmed;
  }
}
