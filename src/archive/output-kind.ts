// The kinds of output (outputs.ts says what each is), apart from outputs.ts: records.ts names
// them too, and outputs.ts reads its records through records.ts.
export const OUTPUT_KINDS = ['sql', 'log'] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

export function isOutputKind(text: string): text is OutputKind {
  return (OUTPUT_KINDS as readonly string[]).includes(text);
}
