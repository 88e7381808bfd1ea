import type { CliAnswer } from './cli-call.js';

/** What a tool returns: the CLI's JSON under each key, or the CLI's own error message. */
export type ToolAnswer = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

export function readAnswers(answers: Record<string, CliAnswer>): ToolAnswer {
  const value: Record<string, unknown> = {};
  for (const [key, answer] of Object.entries(answers)) {
    const parsed = parseJson(answer.stdout);
    if (answer.exitCode !== 0 && answer.exitCode !== 1) return { ok: false, message: errorMessage(parsed, answer) };
    value[key] = parsed;
  }
  return { ok: true, value };
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
