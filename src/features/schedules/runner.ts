/**
 * The cron runner of one agent: decides which due minutes (slots) fire, exactly once each, also
 * across restarts and across processes sharing the storage.
 *
 * Per schedule, storage holds `schedules/<id>` = `{lastSlot}`: the latest slot already handled.
 * Deciding is a read-modify-write of that record under the lease `schedule-fire/<id>`, and the
 * record is advanced before the firing starts, so a slot fires at most once; a process that finds
 * the slot handled (or the lease held) does not fire it. Slots more than `GRACE_MS` old when
 * looked at (the host was down or stalled) are missed: logged, not fired late, unless the
 * schedule sets `catchUp`, which fires once for the latest of them.
 * @module
 */
import { createError, notFound } from "../../base/errors.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { type CronSchedule, compileCron } from "../../base/cron.ts";
import type { Exclusive } from "../../base/storage/exclusive.ts";
import type { TimerPort } from "../../base/ports/timers.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { ScheduleDefinition, ScheduleFiring } from "../../base/definitions/schedules.ts";
import { validateSchedule } from "./validate.ts";
import { scheduleFireKey as leaseKey, scheduleStateKey as stateKey } from "../../base/storage/keys.ts";

/** A slot this late is missed rather than fired. */
export const GRACE_MS = 60_000;
/** The internal fire route accepts a platform clock this far ahead of ours. */
const PLATFORM_SKEW_MS = 5_000;
/** A schedule whose lease another process holds is looked at again this much later. */
const RETRY_MS = 1_000;
/** Missed slots are counted up to this many; beyond it the log says "more than". */
const MAX_COUNTED = 1_000;

interface ScheduleState {
  lastSlot: number;
  lastSlotAt: string;
}

interface Entry {
  id: string;
  definition: ScheduleDefinition;
  cron: CronSchedule;
  /** When to look at this schedule next; null when it never fires again. */
  nextCheck: number | null;
}

export interface SlotFiring extends ScheduleFiring {
  /** The due minute fired (ISO 8601). */
  slot: string;
}

export interface ScheduleRunnerDeps {
  schedules: Record<string, ScheduleDefinition>;
  storage: StorageDriver;
  exclusive: Exclusive;
  timers: TimerPort;
  /** Timer keys are `<keyPrefix>/schedules/<id>`. */
  keyPrefix: string;
  now: () => number;
  logger: HostLogger;
  /** Whether slots fire from `tick` (the cron runner is on). */
  automatic: boolean;
  dispatch(id: string, definition: ScheduleDefinition, slot: number | undefined): Promise<ScheduleFiring>;
}

export class ScheduleRunner {
  readonly #deps: ScheduleRunnerDeps;
  readonly #entries = new Map<string, Entry>();
  /** Slots after this are due for schedules that never fired: the runner's start time. */
  #baseline = 0;
  #closed = false;

  constructor(deps: ScheduleRunnerDeps) {
    this.#deps = deps;
    for (const [id, definition] of Object.entries(deps.schedules)) {
      // The loader leaves invalid schedules out; a project built in code is checked here.
      const problem = validateSchedule(id, definition).find((d) => d.severity === "error");
      if (problem) throw createError("schedules", problem.message);
      this.#entries.set(id, { id, definition, cron: compileCron(definition.cron.trim()), nextCheck: null });
    }
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  ids(): string[] {
    return [...this.#entries.keys()];
  }

  /** Reads each schedule's state and arms its next slot (a past one when slots were due while down). */
  async start(): Promise<void> {
    this.#baseline = this.#deps.now();
    if (!this.#deps.automatic) return;
    for (const entry of this.#entries.values()) {
      const state = await this.#read(entry.id);
      this.#plan(entry, entry.cron.next(state?.lastSlot ?? this.#baseline));
    }
  }

  /** Fires the slots due by `now`. */
  async tick(now: number): Promise<SlotFiring[]> {
    if (!this.#deps.automatic || this.#closed) return [];
    const firings: SlotFiring[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.nextCheck === null || entry.nextCheck > now) continue;
      firings.push(...(await this.#settle(entry, now)));
    }
    return firings;
  }

  /** The dev route: one firing through the production path, outside the slot bookkeeping. */
  async fireByHand(id: string): Promise<ScheduleFiring> {
    const entry = this.#entry(id);
    return this.#deps.dispatch(id, entry.definition, undefined);
  }

  /**
   * The internal route: a platform clock says the schedule is due. Fires the latest slot at or
   * before `now` unless it was handled already (a retried or duplicated call fires nothing).
   */
  async fireFromPlatform(id: string, now: number): Promise<ScheduleFiring> {
    const entry = this.#entry(id);
    const slot = entry.cron.previous(now + PLATFORM_SKEW_MS + 1);
    if (slot === null) return { scheduleId: id, sessionIds: [] };
    const claim = await this.#deps.exclusive(
      leaseKey(id),
      async () => {
        const state = await this.#read(id);
        if (state && state.lastSlot >= slot) return false;
        await this.#write(id, slot);
        return true;
      },
      { waitMs: 5_000 },
    );
    if (!claim.ok || !claim.value) return { scheduleId: id, sessionIds: [] };
    return this.#deps.dispatch(id, entry.definition, slot);
  }

  close(): void {
    this.#closed = true;
  }

  // --- internals ---

  #entry(id: string): Entry {
    const entry = Object.hasOwn(this.#deps.schedules, id) ? this.#entries.get(id) : undefined;
    if (!entry) throw notFound("schedule_not_found", `no schedule named ${JSON.stringify(id)}`, { schedules: this.ids().sort() });
    return entry;
  }

  async #settle(entry: Entry, now: number): Promise<SlotFiring[]> {
    const { cron, id } = entry;
    const claim = await this.#deps.exclusive(leaseKey(id), async () => {
      const state = await this.#read(id);
      const last = state?.lastSlot ?? this.#baseline;
      // Slots strictly before `now - GRACE_MS` are missed; the rest up to `now` fire.
      const latestMissed = cron.previous(now - GRACE_MS);
      const missed = latestMissed !== null && latestMissed > last ? countSlots(cron, last, latestMissed) : undefined;
      const fire: number[] = [];
      if (missed && entry.definition.catchUp === true) fire.push(missed.last);
      for (let slot = cron.next(Math.max(last, missed?.last ?? last)); slot !== null && slot <= now; slot = cron.next(slot)) fire.push(slot);
      const handled = fire.at(-1) ?? missed?.last;
      if (handled !== undefined && handled > last) await this.#write(id, handled);
      return { fire, missed };
    });
    if (!claim.ok) {
      // Another process is deciding about this schedule; its decision will be in storage.
      this.#plan(entry, now + RETRY_MS);
      return [];
    }
    const { fire, missed } = claim.value;
    if (missed) this.#reportMissed(entry, missed);
    this.#plan(entry, entry.cron.next(now));
    const firings: SlotFiring[] = [];
    for (const slot of fire) {
      try {
        const firing = await this.#deps.dispatch(id, entry.definition, slot);
        firings.push({ ...firing, slot: new Date(slot).toISOString() });
      } catch (error) {
        this.#deps.logger.error(`schedule ${id}: the firing for ${new Date(slot).toISOString()} failed`, error);
      }
    }
    return firings;
  }

  #reportMissed(entry: Entry, missed: { count: number; more: boolean; first: number; last: number }): void {
    const count = missed.more ? `more than ${missed.count}` : String(missed.count);
    const span = missed.count === 1 ? new Date(missed.first).toISOString() : `${new Date(missed.first).toISOString()} to ${new Date(missed.last).toISOString()}`;
    const what = entry.definition.catchUp === true ? `fired once, late, for ${new Date(missed.last).toISOString()} (catchUp)` : "not fired late (set catchUp: true to fire once late)";
    this.#deps.logger.warn(`schedule ${entry.id} missed ${count} slot${missed.count === 1 && !missed.more ? "" : "s"} (${span}) while the host was not running; ${what}`);
  }

  #plan(entry: Entry, at: number | null): void {
    entry.nextCheck = at;
    const key = `${this.#deps.keyPrefix}/schedules/${entry.id}`;
    if (this.#closed) return;
    if (at === null) this.#deps.timers.disarm(key);
    else this.#deps.timers.arm(key, at);
  }

  async #read(id: string): Promise<ScheduleState | undefined> {
    const raw = await this.#deps.storage.get(stateKey(id));
    if (raw === undefined) return undefined;
    try {
      const value = JSON.parse(raw) as ScheduleState;
      return typeof value.lastSlot === "number" ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async #write(id: string, slot: number): Promise<void> {
    const state: ScheduleState = { lastSlot: slot, lastSlotAt: new Date(slot).toISOString() };
    await this.#deps.storage.set(stateKey(id), JSON.stringify(state));
  }
}

// --- internals ---


/** The slots in `(after, last]`, counted up to MAX_COUNTED. */
function countSlots(cron: CronSchedule, after: number, last: number): { count: number; more: boolean; first: number; last: number } {
  const first = cron.next(after) ?? last;
  let count = 0;
  for (let slot: number | null = first; slot !== null && slot <= last; slot = cron.next(slot)) {
    if (++count >= MAX_COUNTED && slot < last) return { count, more: true, first, last };
  }
  return { count, more: false, first, last };
}
