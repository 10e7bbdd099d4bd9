/**
 * Recovery by lease (docs/design/processes.md "Recovery"): a process closes only the turns of
 * sessions whose turn lease has expired, that is, whose process crashed or stalled past the lease
 * ttl, never a live neighbour's. It runs on start on a store shared by processes, and then on any
 * store whose leases reach other processes: every lease ttl while no other process has a turn
 * open, every {@link FAST_SWEEP_MS} while one does, so a crashed process's turns end within the
 * ttl plus a couple of seconds even when no process restarts.
 * @module
 */
import { recoverSession, type RecoveryDeps } from "./recovery.ts";
import type { SharedTurnSlots } from "./shared-turn-slots.ts";
import type { TurnLeases } from "./turn-leases.ts";

export interface SweepDeps extends RecoveryDeps {
  leases: TurnLeases;
  /** True while this process has the session's turn (or an admission for it) in hand. */
  isLocal: (sessionId: string) => boolean;
  /** The shared turn-slot FIFO, whose entries for recovered sessions are dropped. */
  slots?: SharedTurnSlots;
}

/**
 * Closes every session whose active marker names another process and whose turn lease nobody
 * holds. The sweeper takes the lease itself (under its own owner id) while it recovers, so two
 * sweeping processes never close one session twice and no admission slips in meanwhile.
 * Resolves with the number of sessions recovered.
 */
export async function sweepOrphans(deps: SweepDeps): Promise<number> {
  return (await sweep(deps)).recovered;
}

/** What one sweep found: sessions it recovered, and turns other processes still hold. */
interface Swept {
  recovered: number;
  held: number;
}

async function sweep(deps: SweepDeps): Promise<Swept> {
  const { store, leases, logger } = deps;
  const recovered = new Set<string>();
  let held = 0;
  for (const sessionId of await store.listActive()) {
    try {
      if (deps.isLocal(sessionId)) continue;
      const owner = await store.activeTurn(sessionId);
      if (owner === undefined || owner === leases.owner) continue;
      if (await recoverIfOrphaned(deps, sessionId, owner, false)) recovered.add(sessionId);
      else held++;
    } catch (error) {
      logger.error(`could not recover session ${sessionId}`, error);
    }
  }
  // The recovered sessions' slots, and this process's own entries that no turn here holds any more
  // (a release whose write failed): either would count against the cap for good.
  await deps.slots
    ?.forget((entry) => (entry.owner === leases.owner ? !deps.isLocal(entry.sessionId) : recovered.has(entry.sessionId)))
    .catch((error: unknown) => logger.error("could not drop stale turn slots", error));
  if (recovered.size > 0) logger.info(`recovered ${recovered.size} session(s) whose process stopped renewing its turn lease`);
  return { recovered: recovered.size, held };
}

/**
 * Recovers one session whose marker names `owner`, if `owner`'s turn lease is gone; false while it
 * is held (the turn runs, or waits for a slot, in a live process). Used by the sweep, and by a
 * request that reaches a session whose marker names a process that stopped answering.
 */
export async function recoverIfOrphaned(deps: SweepDeps, sessionId: string, owner: string, dropSlots = true): Promise<boolean> {
  const { store, leases } = deps;
  const sweeper = sweeperOwner(leases);
  if (!(await leases.take(sessionId, sweeper))) return false;
  let recovered = false;
  try {
    // Settled while we looked (the lease goes before the marker): nothing is open.
    if ((await store.activeTurn(sessionId)) !== owner) return true;
    recovered = await recoverSession(deps, sessionId);
  } finally {
    await leases.release(sessionId, sweeper);
  }
  if (recovered && dropSlots) await deps.slots?.forget((entry) => entry.owner === owner && entry.sessionId === sessionId);
  return true;
}

/** The lease owner a process recovers under, apart from its own turns' owner. */
export const sweeperOwner = (leases: TurnLeases): string => `${leases.owner}/sweep`;

/**
 * How often the sweep runs while another process holds a turn: its lease may expire any moment
 * after it stops renewing, and is closed at most this long after (docs/design/processes.md
 * "Recovery by lease").
 */
export const FAST_SWEEP_MS = 2_000;

/**
 * Runs {@link sweepOrphans} (never two at once) until the returned function is called: `ttlMs`
 * after a sweep that saw no other process's turn (a turn opened since then is seen by the next
 * sweep before its lease can have expired by more than that), {@link FAST_SWEEP_MS} after one
 * that saw a turn another process holds, so that turn's end is noticed soon after its lease
 * expires: within the ttl plus {@link FAST_SWEEP_MS} of its process's death.
 */
export function startSweeping(deps: SweepDeps, ttlMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      void sweep(deps)
        .then(
          ({ held }) => (held > 0 ? Math.min(ttlMs, FAST_SWEEP_MS) : ttlMs),
          (error: unknown) => {
            deps.logger.error("recovery sweep failed", error);
            return ttlMs;
          },
        )
        .then(schedule);
    }, delayMs);
    (timer as { unref?: () => void }).unref?.();
  };
  // The first sweep comes soon: a process starting after a crash may be the only one left to notice it.
  schedule(Math.min(ttlMs, FAST_SWEEP_MS));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
