/**
 * A number with its noun, read aloud: "1 invocation", "7 invocations", "2 invocations with a
 * manifest". `plural` is for nouns English does not make with an s.
 */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
