import { AtticError } from '../errors.js';
import type { Backend } from './backend.js';
import { refKey, refNameOfKey } from './layout.js';

/**
 * Refs are the archive's only mutable values (branch heads). Every change goes through
 * compare-and-swap: a writer that lost a race re-reads and re-applies its change, so two
 * writers never lose an update.
 */
export async function readRef(backend: Backend, namespace: string, name: string): Promise<string | undefined> {
  const bytes = await backend.get(refKey(namespace, name));
  return bytes?.toString('utf8');
}

const MAX_ATTEMPTS = 50;

/** Applies `change` to the ref's current value until the swap wins; returns the value written. */
export async function updateRef(
  backend: Backend,
  namespace: string,
  name: string,
  change: (current: string | undefined) => string | undefined,
): Promise<string | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await backend.get(refKey(namespace, name));
    const next = change(current?.toString('utf8'));
    const nextBytes = next === undefined ? undefined : Buffer.from(next);
    if (await backend.compareAndSwap(refKey(namespace, name), current, nextBytes)) return next;
  }
  throw new AtticError('ref-conflict', `Ref '${name}' kept changing under us after ${MAX_ATTEMPTS} attempts. Try again.`);
}

export async function listRefs(backend: Backend, namespace: string): Promise<string[]> {
  const keys = await backend.list(refKey(namespace, ''));
  return keys.map((entry) => refNameOfKey(namespace, entry.key)).filter((name): name is string => name !== undefined && name !== '');
}
