// An artifact's JSON as parsed, as per-node.ts names it; said again here, not imported: per-node.ts imports this file.
type Doc = Record<string, unknown>;

/**
 * What a node was built with besides its own entry: the macros it calls (and the macros they
 * call), the ephemeral models inlined into it (and theirs), and the sources it reads. A
 * --state directory holds one copy of each of those, the newest manifest's, while a node of
 * `state --per-node` comes from a build that may have used other ones: dbt, comparing the
 * project with the state, would then miss a change made since that build (a macro edited and
 * its manifest filed before `state` runs: real dbt 1.12, issue 43). Each input the build's
 * manifest names is compared with its definition in the newest manifest; which inputs a node
 * names is the build's word (dbt adds macros found while compiling, a parse does not list them).
 */
export class InlinedInputs {
  private readonly macroMemo = new Map<string, boolean>();

  constructor(
    private readonly built: Doc,
    private readonly newest: Doc,
  ) {}

  /** True when an input of the node in the build's manifest has another definition in the newest. */
  changedSinceBuild(uniqueId: string, seen = new Set<string>()): boolean {
    if (seen.has(uniqueId)) return false;
    seen.add(uniqueId);
    const node = section(this.built, 'nodes')[uniqueId];
    const dependsOn = (node?.depends_on ?? {}) as { nodes?: unknown; macros?: unknown };
    if (strings(dependsOn.macros).some((macro) => this.macroChanged(macro, new Set()))) return true;
    return strings(dependsOn.nodes).some((upstream) => {
      if (upstream.startsWith('source.'))
        return sourceSignature(section(this.built, 'sources')[upstream]) !== sourceSignature(section(this.newest, 'sources')[upstream]);
      const then = section(this.built, 'nodes')[upstream];
      if (!isEphemeral(then)) return false;
      return codeOf(then) !== codeOf(section(this.newest, 'nodes')[upstream]) || this.changedSinceBuild(upstream, seen);
    });
  }

  /** A macro whose SQL differs, or that calls one that does. */
  private macroChanged(uniqueId: string, seen: Set<string>): boolean {
    const known = this.macroMemo.get(uniqueId);
    if (known !== undefined) return known;
    if (seen.has(uniqueId)) return false;
    seen.add(uniqueId);
    const then = section(this.built, 'macros')[uniqueId];
    const now = section(this.newest, 'macros')[uniqueId];
    const calls = strings(((then?.depends_on ?? {}) as { macros?: unknown }).macros);
    const changed = then?.macro_sql !== now?.macro_sql || calls.some((m) => this.macroChanged(m, seen));
    this.macroMemo.set(uniqueId, changed);
    return changed;
  }
}

function section(manifest: Doc, name: 'nodes' | 'macros' | 'sources'): Record<string, Doc> {
  return (manifest[name] ?? {}) as Record<string, Doc>;
}

function codeOf(node: Doc | undefined): string | undefined {
  return node === undefined ? undefined : String(node.raw_code ?? node.raw_sql ?? '');
}

/** An ephemeral model: dbt never builds it, and inlines its SQL into each model that refs it. */
export function isEphemeral(node: Doc | undefined): boolean {
  return node?.resource_type === 'model' && ((node.config ?? {}) as Doc).materialized === 'ephemeral';
}

/** A source's definition without what changes at every parse (dbt stamps created_at). */
function sourceSignature(source: Doc | undefined): string {
  if (!source) return '(absent)';
  const { created_at: _createdAt, ...definition } = source;
  return JSON.stringify(definition);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
