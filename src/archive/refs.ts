import { AtticError } from '../errors.js';
import type { Backend } from './backend.js';
import { refKey } from './layout.js';

/**
 * Refs are the archive's only mutable values (branch heads). Every change goes through
 * compare-and-swap: a writer that lost a race re-reads and re-applies its change, so two
 * writers never lose an update.
 */
export async function readRef(backend: Backend, name: string): Promise<string | undefined> {
  const bytes = await backend.get(refKey(name));
  return bytes?.toString('utf8');
}

const MAX_ATTEMPTS = 50;

/** Applies `change` to the ref's current value until the swap wins; returns the value written. */
export async function updateRef(
  backend: Backend,
  name: string,
  change: (current: string | undefined) => string | undefined,
): Promise<string | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await backend.get(refKey(name));
    const next = change(current?.toString('utf8'));
    const nextBytes = next === undefined ? undefined : Buffer.from(next);
    if (await backend.compareAndSwap(refKey(name), current, nextBytes)) return next;
  }
  throw new AtticError('ref-conflict', `Ref '${name}' kept changing under us after ${MAX_ATTEMPTS} attempts. Try again.`);
}

export async function listRefs(backend: Backend, prefix: string): Promise<string[]> {
  const base = refKey(prefix);
  return (await backend.list(base)).map((entry) => decodeURIComponent(entry.key.slice('refs/'.length)));
}
