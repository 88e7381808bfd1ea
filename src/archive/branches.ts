import { AtticError } from '../errors.js';
import type { Backend } from './backend.js';
import { HEAD_ENTRIES_PREFIX, decodedSegment, headEntriesPrefix, headEntryKey, refKey, refNameOfKey } from './layout.js';
import type { CapturedArtifact, CaptureRecord } from './records.js';
import { listRefs, readRef, updateRef } from './refs.js';
import { compareText } from '../vocab/index.js';

/**
 * A branch is a line of history: captures are filed on one (by default the git branch), and
 * teams, CI jobs and agents can keep their own without touching production's. Its ref holds
 * its head (the newest capture filed on it) and, for a branch made with `branch create`, the
 * run it started from. Heads only move forward, by compare-and-swap, so concurrent captures
 * never lose an update; the history itself is in the capture records, which are never lost.
 *
 * Fallback for storage without compare-and-swap (some S3-compatible servers ignore If-Match):
 * each capture that moves a branch writes an immutable entry named by its time-ordered capture
 * id (headEntryKey), and the head is the newest entry. Entries are only ever added, so
 * concurrent writers cannot lose one. Readers always merge both forms, so stores written in
 * either mode (or both) read the same.
 */
export interface Branch {
  name: string;
  head_capture_id: string | null;
  head_invocation_id: string | null;
  base: { invocation_id: string; branch: string | null } | null;
  created_at: string;
}

const NAMESPACE = 'branches';
// Git's rules, roughly: whatever git accepts as a branch must be accepted here, since captures
// are filed on the git branch by default.
const NAME = /^[^\s~^:?*[\\\x00-\x1f\x7f/-][^\s~^:?*[\\\x00-\x1f\x7f]{0,199}$/;

function usableBranchName(name: string): boolean {
  return NAME.test(name) && !name.includes('..') && !name.endsWith('/') && !name.endsWith('.lock');
}

export function checkBranchName(name: string): string {
  if (!usableBranchName(name)) {
    throw new AtticError('usage', `'${name}' is not a usable branch name (no spaces, '..', '~^:?*[\\', no '-' or '/' first, no '.lock' last).`);
  }
  return name;
}

export async function readBranch(backend: Backend, name: string): Promise<Branch | null> {
  // A name from the user (`@`, `@../x`): refused as a name, never read as a path.
  checkBranchName(name);
  const [text, entry] = await Promise.all([readRef(backend, NAMESPACE, name), newestHeadEntry(backend, name)]);
  const branch = text ? parseBranch(text) : null;
  if (!entry) return branch;
  const base = branch ?? { name, head_capture_id: null, head_invocation_id: null, base: null, created_at: entry.at };
  if (base.head_capture_id !== null && base.head_capture_id >= entry.capture_id) return base;
  return { ...base, head_capture_id: entry.capture_id, head_invocation_id: entry.invocation_id ?? base.head_invocation_id };
}

interface HeadEntry {
  capture_id: string;
  invocation_id: string | null;
  at: string;
}

async function newestHeadEntry(backend: Backend, name: string): Promise<HeadEntry | null> {
  const keys = (await backend.list(headEntriesPrefix(name))).map((k) => k.key).sort();
  const newest = keys.at(-1);
  const bytes = newest ? await backend.get(newest) : undefined;
  if (!bytes) return null;
  try {
    return JSON.parse(bytes.toString('utf8')) as HeadEntry;
  } catch {
    throw new AtticError('archive-damaged', `The branch head entry ${newest} is unreadable. Run 'dbtattic verify'.`);
  }
}

export async function listBranches(backend: Backend): Promise<Branch[]> {
  const names = (await storedBranchKeys(backend)).filter((k) => k.name !== null).map((k) => k.name!);
  const branches = await Promise.all(names.map((name) => readBranch(backend, name)));
  return branches.filter((b): b is Branch => b !== null).sort((a, b) => a.name.localeCompare(b.name));
}

/** Moves the head to `captureId` unless a newer capture is already there. */
export async function advanceBranch(backend: Backend, name: string, captureId: string, invocationId: string | null, now: Date): Promise<void> {
  if (!backend.capabilities.compareAndSwap) {
    const entry: HeadEntry = { capture_id: captureId, invocation_id: invocationId, at: now.toISOString() };
    await backend.putIfAbsent(headEntryKey(checkBranchName(name), captureId), Buffer.from(`${JSON.stringify(entry)}\n`));
    return;
  }
  await updateRef(backend, NAMESPACE, checkBranchName(name), (current) => {
    const branch = current ? parseBranch(current) : { name, head_capture_id: null, head_invocation_id: null, base: null, created_at: now.toISOString() };
    if (branch.head_capture_id !== null && branch.head_capture_id >= captureId) return current;
    return serialise({ ...branch, head_capture_id: captureId, head_invocation_id: invocationId ?? branch.head_invocation_id });
  });
}

/** A new branch whose history starts at `base`; refuses a name already taken. */
export async function createBranch(backend: Backend, name: string, base: Branch['base'], now: Date): Promise<Branch> {
  const branch: Branch = {
    name: checkBranchName(name),
    head_capture_id: null,
    head_invocation_id: base?.invocation_id ?? null,
    base,
    created_at: now.toISOString(),
  };
  if (!backend.capabilities.compareAndSwap) {
    // Create-only is enough to make a name taken exactly once.
    const taken = (await newestHeadEntry(backend, name)) !== null || !(await backend.putIfAbsent(refKey(NAMESPACE, name), Buffer.from(serialise(branch))));
    if (taken) throw new AtticError('usage', `Branch '${name}' exists already. Pick another name.`);
    return branch;
  }
  await updateRef(backend, NAMESPACE, name, (current) => {
    if (current !== undefined) throw new AtticError('usage', `Branch '${name}' exists already. Pick another name.`);
    return serialise(branch);
  });
  return branch;
}

/**
 * Removes a branch's ref: its name, head and base. The captures filed on it stay, as history
 * does; a later capture filed on the name starts it again.
 */
export async function deleteBranch(backend: Backend, name: string): Promise<Branch> {
  checkBranchName(name);
  if (!backend.capabilities.compareAndSwap) {
    throw new AtticError(
      'usage',
      `Branch heads in ${backend.location} are written once and never removed (no conditional writes), so branch '${name}' cannot be deleted there.`,
    );
  }
  let deleted: Branch | null = null;
  await updateRef(backend, NAMESPACE, name, (current) => {
    if (current === undefined) throw new AtticError('not-found', `No branch '${name}'. See dbtattic branch list.`);
    // An unreadable ref can still go: deleting is one way out of the damage.
    deleted = tryParseBranch(current) ?? { name, head_capture_id: null, head_invocation_id: null, base: null, created_at: '' };
    return undefined;
  });
  return deleted!;
}

/**
 * Every key under the branch refs and head entries, with the branch it names; null for a key
 * dbtattic never writes (a name git refuses, or spelt other than refKey spells it, such as
 * `refs/branches/evil%2F..%2F..`): such a key is skipped by every reader, reported by verify
 * and removed by `verify --repair`. One such key stopped branch list, forget and pull.
 */
async function storedBranchKeys(backend: Backend): Promise<{ key: string; name: string | null }[]> {
  const named = (key: string, name: string | undefined, canonical: (name: string) => boolean): { key: string; name: string | null } => ({
    key,
    name: name !== undefined && usableBranchName(name) && canonical(name) ? name : null,
  });
  const refs = (await backend.list(refKey(NAMESPACE, ''))).map(({ key }) =>
    named(key, refNameOfKey(NAMESPACE, key), (name) => refKey(NAMESPACE, name) === key),
  );
  const entries = (await backend.list(HEAD_ENTRIES_PREFIX)).map(({ key }) =>
    named(key, decodedSegment(key.slice(HEAD_ENTRIES_PREFIX.length).split('/')[0]!), (name) => key.startsWith(headEntriesPrefix(name))),
  );
  // A branch with a ref and head entries is one branch; every stray key is its own.
  const seen = new Set<string>();
  return [...refs, ...entries].filter(({ name }) => {
    if (name === null) return true;
    if (seen.has(name)) return false;
    seen.add(name);
    return true;
  });
}

/** Keys under the branch refs that name no branch dbtattic could have written. */
export async function strayBranchKeys(backend: Backend): Promise<string[]> {
  return (await storedBranchKeys(backend)).filter((k) => k.name === null).map((k) => k.key);
}

/**
 * Branches whose base or head names an invocation the archive no longer has (`present`: the
 * invocations with artifact records): `state --branch` and `inspect @name` then find nothing.
 * Unreadable refs are left to unreadableBranchRefs.
 */
export async function branchesNamingGoneRuns(
  backend: Backend,
  present: ReadonlySet<string>,
): Promise<{ name: string; key: string; role: 'base' | 'head'; invocationId: string }[]> {
  const out: { name: string; key: string; role: 'base' | 'head'; invocationId: string }[] = [];
  for (const { name } of await storedBranchKeys(backend)) {
    const branch = name === null ? null : await readBranch(backend, name).catch(() => null);
    if (!branch) continue;
    const base = branch.base?.invocation_id;
    if (base && !present.has(base)) out.push({ name: branch.name, key: refKey(NAMESPACE, branch.name), role: 'base', invocationId: base });
    const head = branch.head_invocation_id;
    if (head && head !== base && !present.has(head)) out.push({ name: branch.name, key: refKey(NAMESPACE, branch.name), role: 'head', invocationId: head });
  }
  return out;
}

/** Branch refs that do not parse (disk damage, a hand edit): each blocks every capture on its branch. */
export async function unreadableBranchRefs(backend: Backend): Promise<{ name: string; key: string }[]> {
  const out: { name: string; key: string }[] = [];
  const names = (await listRefs(backend, NAMESPACE)).filter((name) => usableBranchName(name));
  for (const name of names) {
    const text = await readRef(backend, NAMESPACE, name);
    if (text !== undefined && tryParseBranch(text) === null) out.push({ name, key: refKey(NAMESPACE, name) });
  }
  return out;
}

/**
 * Writes an unreadable ref again from the history itself: the head is the newest capture filed
 * on the branch that moved one. A base (`branch create`) is recorded nowhere else and is lost.
 * Returns whether it was written (a readable ref is left as it is).
 */
export async function rewriteBranchRef(backend: Backend, name: string, captures: readonly CaptureRecord[], now: Date): Promise<boolean> {
  const heads = captures
    .filter((c) => c.branch === name)
    .map((c) => ({ capture: c, invocation: headInvocation(c.artifacts.filter((a) => a.status === 'captured')) }));
  const newest = heads
    .filter((h) => h.invocation !== null)
    .sort((a, b) => compareText(a.capture.capture_id, b.capture.capture_id))
    .at(-1);
  const branch: Branch = {
    name,
    head_capture_id: newest?.capture.capture_id ?? null,
    head_invocation_id: newest?.invocation ?? null,
    base: null,
    created_at: now.toISOString(),
  };
  let written = false;
  await updateRef(backend, NAMESPACE, name, (current) => {
    if (current === undefined || tryParseBranch(current) !== null) return current;
    written = true;
    return serialise(branch);
  });
  return written;
}

/**
 * The invocation a capture makes its branch's head: the one whose results it captured, else its
 * manifest's, else another artifact's (source freshness). Never a semantic manifest's alone:
 * without a manifest beside it, it is filed under its content, an invocation nothing runs from.
 */
export function headInvocation(captured: readonly CapturedArtifact[]): string | null {
  const by = (type: string): string | null => captured.find((a) => a.artifact === type)?.invocation_id ?? null;
  return by('run_results') ?? by('manifest') ?? captured.find((a) => a.artifact !== 'semantic_manifest')?.invocation_id ?? null;
}

function tryParseBranch(text: string): Branch | null {
  try {
    return parseBranch(text);
  } catch {
    return null;
  }
}

function serialise(branch: Branch): string {
  return `${JSON.stringify(branch, null, 2)}\n`;
}

function parseBranch(text: string): Branch {
  try {
    const value = JSON.parse(text) as Branch;
    if (typeof value.name === 'string') return value;
  } catch {
    // reported below
  }
  throw new AtticError(
    'archive-damaged',
    `A branch ref is unreadable: ${text.slice(0, 80)}. Run 'dbtattic verify --repair' to write it again from the capture records.`,
  );
}
