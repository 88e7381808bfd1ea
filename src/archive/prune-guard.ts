import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { newTimeId, processIsGone } from '../vocab/index.js';
import type { Backend, BackendCapabilities, StoredKey } from './backend.js';
import { followArchiveFormat } from './archive-format.js';
import { CHUNKS_PREFIX, FILES_PREFIX } from './layout.js';

/**
 * How prune and writers (capture, push, pull) stay out of each other's way without a lock
 * anyone must wait long for. The danger is one sequence: a writer finds an object that exists
 * (so it does not write it), prune deletes it as unreferenced, the writer's record then names
 * a missing object. Two kinds of small keys prevent it:
 * - a writer lease `locks/writers/<id>.json`, taken before the writer's first look at an
 *   object (GuardedBackend below) and dropped when it is done;
 * - a sweep marker `locks/sweeps/<id>.json`, written by prune before its last look at the
 *   records and kept until its last deletion.
 * A writer writes its lease, then looks for sweep markers; prune writes its marker, then looks
 * for leases. On storage where a write is visible to every later listing (a filesystem, S3
 * since 2020, Ceph), at least one of the two sees the other: either prune waits until the
 * writer is done and then sees its records, or the writer steps back (drops its lease) and
 * waits until the sweep is over, after which it finds the deleted objects absent and writes
 * them again. A holder that died is recognised (same machine: its process is gone; another:
 * its key is older than LEASE_MS) and ignored.
 */
export const LOCKS_PREFIX = 'locks/';
const WRITERS_PREFIX = `${LOCKS_PREFIX}writers/`;
const SWEEPS_PREFIX = `${LOCKS_PREFIX}sweeps/`;
/**
 * The same discipline between forget and what makes an invocation a base (branch create): a
 * base lease `locks/bases/<id>.json` against a forget marker `locks/forgets/<id>.json`. Either
 * forget sees the lease, waits, and then reads the new branch (whose base it keeps), or branch
 * create sees the marker, waits, and then finds its base forgotten and says so.
 */
const BASES_PREFIX = `${LOCKS_PREFIX}bases/`;
const FORGETS_PREFIX = `${LOCKS_PREFIX}forgets/`;
const HOLDER_PREFIXES = [SWEEPS_PREFIX, WRITERS_PREFIX, FORGETS_PREFIX, BASES_PREFIX];
/** A writer lease of an older dbtattic, which does not renew it, is presumed dead after this long. */
export const LEASE_MS = 60 * 60 * 1000;
/** Leases and sweep markers are renewed this often, and one not renewed for STALE_MS is a dead holder's. */
const RENEW_MS = 20_000;
const STALE_MS = 120_000;
const POLL_MS = 100;

interface Holder {
  id: string;
  host: string;
  pid: number;
  started_at: string;
  /**
   * Which process the pid named when the key was written (Linux: its boot and its start in
   * clock ticks): pids come round again, and in a container every job's dbtattic can get the pid
   * a killed one had. Absent where the system does not say, and in keys of older versions.
   */
  process?: string;
  /** Renewed every RENEW_MS while its holder works (sweep markers always were, leases since). */
  renewed?: boolean;
}

export type WaitNote = (what: string) => void;

/** Takes a writer lease, stepping back while a sweep runs; resolves to its release. */
export function takeWriterLease(backend: Backend, onWait?: WaitNote): Promise<() => Promise<void>> {
  return takeLease(backend, WRITERS_PREFIX, SWEEPS_PREFIX, () => onWait?.('a prune is deleting objects; waiting for it to finish'));
}

/** Marks the sweep, then waits until no writer that could have missed the mark is at work. */
export function beginSweep(backend: Backend, onWait?: WaitNote): Promise<() => Promise<void>> {
  return announce(backend, SWEEPS_PREFIX, WRITERS_PREFIX, (n) => onWait?.(`waiting for ${n} capture(s) at work to finish`));
}

/** Held while an invocation is made a base (branch create), stepping back while a forget runs. */
export function takeBaseLease(backend: Backend, onWait?: WaitNote): Promise<() => Promise<void>> {
  return takeLease(backend, BASES_PREFIX, FORGETS_PREFIX, () => onWait?.('a forget is removing invocations; waiting for it to finish'));
}

/** Marks a forget before it reads what protects invocations, then waits for bases being made. */
export function beginForget(backend: Backend, onWait?: WaitNote): Promise<() => Promise<void>> {
  return announce(backend, FORGETS_PREFIX, BASES_PREFIX, (n) => onWait?.(`waiting for ${n} branch create(s) at work to finish`));
}

/** The yielding side of a pair: its key first, then a look for the other side's; it steps back while one lives. */
async function takeLease(backend: Backend, mine: string, theirs: string, onWait: () => void): Promise<() => Promise<void>> {
  for (let noted = false; ; noted = true) {
    const lease = await holdRenewedKey(backend, mine);
    if ((await liveHolders(backend, theirs)).length === 0) return lease;
    await lease();
    if (!noted) onWait();
    await waitUntilNone(backend, theirs);
  }
}

/** The announcing side: its key first, then it waits until none of the other side's lives. */
async function announce(backend: Backend, mine: string, theirs: string, onWait: (holders: number) => void): Promise<() => Promise<void>> {
  const release = await holdRenewedKey(backend, mine);
  const holders = await liveHolders(backend, theirs);
  if (holders.length > 0) onWait(holders.length);
  await waitUntilNone(backend, theirs);
  return release;
}

/**
 * Writes a holder key under `prefix` and renews it every RENEW_MS until released, so that one
 * whose holder was killed is known dead within STALE_MS on any machine. Renewed under a new key
 * (keys are written once), the new one before the old one goes.
 */
async function holdRenewedKey(backend: Backend, prefix: string): Promise<() => Promise<void>> {
  let key = `${prefix}${newTimeId()}.json`;
  await backend.putIfAbsent(key, holderBytes(key));
  const renew = setInterval(() => {
    const next = `${prefix}${newTimeId()}.json`;
    const old = key;
    key = next;
    void backend
      .putIfAbsent(next, holderBytes(next))
      .then(() => backend.delete(old))
      .catch(() => undefined);
  }, RENEW_MS);
  renew.unref();
  return async () => {
    clearInterval(renew);
    await backend.delete(key);
  };
}

/** Keys left by a holder that was killed (prune, a writer, forget, branch create): harmless, and removed by the next prune. */
export async function removeDeadHolders(backend: Backend): Promise<number> {
  let removed = 0;
  for (const prefix of HOLDER_PREFIXES) {
    const dead = (await readHolders(backend, prefix)).filter((h) => !isLive(h.holder, prefix));
    for (const h of dead) await backend.delete(h.key);
    removed += dead.length;
  }
  return removed;
}

async function waitUntilNone(backend: Backend, prefix: string): Promise<void> {
  while ((await liveHolders(backend, prefix)).length > 0) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}

async function liveHolders(backend: Backend, prefix: string): Promise<Holder[]> {
  return (await readHolders(backend, prefix)).map((h) => h.holder).filter((h) => isLive(h, prefix));
}

async function readHolders(backend: Backend, prefix: string): Promise<{ key: string; holder: Holder }[]> {
  const out: { key: string; holder: Holder }[] = [];
  for (const { key } of await backend.list(prefix)) {
    const bytes = await backend.get(key);
    if (!bytes) continue;
    try {
      out.push({ key, holder: JSON.parse(bytes.toString('utf8')) as Holder });
    } catch {
      // a half-written holder cannot exist (writes are atomic); anything else is not ours
    }
  }
  return out;
}

/** This process, as processIdentity names it: read once, it does not change. */
let ownIdentity: string | null | undefined;

function holderBytes(key: string): Buffer {
  if (ownIdentity === undefined) ownIdentity = processIdentity(process.pid);
  const me = ownIdentity;
  const holder: Holder = { id: key, host: hostname(), pid: process.pid, started_at: new Date().toISOString(), ...(me ? { process: me } : {}), renewed: true };
  return Buffer.from(`${JSON.stringify(holder)}\n`);
}

/**
 * A key renewed by its holder is alive while recent; an older writer's lease, never renewed,
 * for LEASE_MS. On this machine, a key whose pid is gone is dead at once, and one whose pid is
 * alive and still the process that wrote it is alive: pids come round again, so another process
 * with that pid counts for nothing either way, and the key's age decides.
 */
function isLive(holder: Holder, prefix: string): boolean {
  const renews = holder.renewed === true || prefix === SWEEPS_PREFIX;
  const recent = Date.now() - Date.parse(holder.started_at) < (renews ? STALE_MS : LEASE_MS);
  if (holder.host !== hostname()) return recent;
  if (processIsGone(holder.pid)) return false;
  if (holder.process !== undefined && holder.process === processIdentity(holder.pid)) return true;
  return holder.process === undefined && !renews ? true : recent;
}

/** Linux: the boot and the process's start time (field 22 of /proc/PID/stat); null elsewhere. */
function processIdentity(pid: number): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from after the last ')'.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return start ? `${boot}/${start}` : null;
  } catch {
    return null;
  }
}

/**
 * A writer's view of the backend: its first look at an object (chunks/ or files/) takes the
 * lease, so a capture that finds nothing to write costs no extra request.
 */
export class GuardedBackend implements Backend {
  private lease: Promise<() => Promise<void>> | null = null;

  constructor(
    private readonly inner: Backend,
    private readonly onWait?: WaitNote,
  ) {
    followArchiveFormat(this, inner);
  }

  get location(): string {
    return this.inner.location;
  }

  get capabilities(): BackendCapabilities {
    return this.inner.capabilities;
  }

  /** Drops the lease, if one was taken. */
  async release(): Promise<void> {
    const lease = this.lease;
    this.lease = null;
    if (lease) await (await lease)();
  }

  private async guard(key: string): Promise<void> {
    if (!key.startsWith(CHUNKS_PREFIX) && !key.startsWith(FILES_PREFIX)) return;
    this.lease ??= takeWriterLease(this.inner, this.onWait);
    await this.lease;
  }

  async get(key: string): Promise<Buffer | undefined> {
    await this.guard(key);
    return this.inner.get(key);
  }

  async has(key: string): Promise<boolean> {
    await this.guard(key);
    return this.inner.has(key);
  }

  async putIfAbsent(key: string, data: Uint8Array): Promise<boolean> {
    await this.guard(key);
    return this.inner.putIfAbsent(key, data);
  }

  list(prefix: string, startAfter?: string): Promise<StoredKey[]> {
    return this.inner.list(prefix, startAfter);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  compareAndSwap(key: string, expected: Uint8Array | undefined, next: Uint8Array | undefined): Promise<boolean> {
    return this.inner.compareAndSwap(key, expected, next);
  }
}

/** Runs `write` with a guarded view of `backend`, dropping the lease however it ends. */
export async function withWriterLease<T>(backend: Backend, write: (guarded: Backend) => Promise<T>, onWait?: WaitNote): Promise<T> {
  const guarded = new GuardedBackend(backend, onWait);
  try {
    return await write(guarded);
  } finally {
    await guarded.release();
  }
}
