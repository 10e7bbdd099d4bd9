/**
 * The coordination between processes and hosts sharing one store (docs/design/processes.md): the
 * session turn leases, the shared turn-slot FIFO, and which placement the agent's sessions have:
 * all in this process, forwarded to the lease holder, or each in a host of its own
 * (docs/design/cloudflare.md "Where turns run"). Decided once, when the agent is composed.
 * @module
 */
import type { SessionPlacement } from "../base/definitions/placement.ts";
import { turnSlotsKey } from "../base/storage/keys.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import { SharedTurnSlots } from "../engine/sessions/shared-turn-slots.ts";
import { TurnLeases } from "../engine/sessions/turn-leases.ts";

export interface Coordination {
  leases: TurnLeases;
  /** The turn-slot FIFO every process shares, where leases are shared and turns are capped. */
  sharedSlots?: SharedTurnSlots;
  /** Sessions live in hosts of their own: what concerns one is sent to its host. */
  placement?: SessionPlacement;
  /** Other processes run turns of these sessions: requests are forwarded to the lease holder. */
  crossProcess: boolean;
  /** The store's `follow` reaches other processes (Redis): recovery is by lease only. */
  sharedFollow: boolean;
  /** The store's leases reach other processes: orphans are swept (every lease ttl, every 2 s while others run turns). */
  sharedLeases: boolean;
}

export function createCoordination(
  storage: StorageDriver,
  options: { owner: string; slug: string; leaseTtlMs?: number; placement?: SessionPlacement; maxRunningTurns?: number },
): Coordination {
  const leases = new TurnLeases(storage, `${options.owner}/${options.slug}`, options.leaseTtlMs);
  const { follow, sharedLeases } = storage.capabilities;
  // Sessions placed in hosts of their own need no forwarding: what concerns one is sent to its host.
  const { placement, maxRunningTurns } = options;
  const sharedSlots =
    sharedLeases && maxRunningTurns !== undefined
      ? new SharedTurnSlots(storage, { key: turnSlotsKey(options.slug), max: maxRunningTurns, owner: leases.owner })
      : undefined;
  return {
    leases,
    ...(sharedSlots ? { sharedSlots } : {}),
    ...(placement ? { placement } : {}),
    crossProcess: placement === undefined && (sharedLeases || follow === "shared"),
    sharedFollow: follow === "shared",
    sharedLeases,
  };
}
