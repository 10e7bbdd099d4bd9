/**
 * The reminders of one agent: creation, listing, cancellation, and firing.
 *
 * Records live in storage (`reminders/<id>`) and are the truth; this process keeps an in-memory
 * due index of the armed ones, loaded once at start, and arms the timer port with each due time.
 * Every firing decision is a read-modify-write of the record under a lease (`exclusive`), and
 * the record is advanced before the message goes out: a reminder fires at most once per due
 * time, also when two processes share the storage.
 * @module
 */
import type { ToolHostServices } from "../../base/definitions/tools.ts";
import { HTTPError, conflict } from "../../base/errors.ts";
import type { SessionEntry } from "../../base/definitions/session-face.ts";
import type { SessionRecordsView } from "../../base/definitions/sessions.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import type { Exclusive } from "../../base/storage/exclusive.ts";
import { mapLimit } from "../../base/map-limit.ts";
import type { TimerPort } from "../../base/ports/timers.ts";
import type { HostLogger } from "../../base/logging.ts";
import { cadenceOf, firstFireAt, nextFireAt } from "./cadence.ts";
import { ConversationGone, type RunHandler, deliverToConversation, reminderMessage, runReminderHandler } from "./deliver.ts";
import { DueIndex } from "./due-index.ts";
import { type CheckOptions, checkReminderInput } from "./input.ts";
import { ReminderStore, isReminderId, newReminderId } from "./store.ts";
import type { ReminderListFilter, ReminderRecord, RemindersFacade } from "../../base/definitions/reminders.ts";

/** Reminders delivered in parallel by one tick. */
const FIRE_CONCURRENCY = 32;
/** Reminders decided under one acquisition of the lease. */
const CLAIM_CHUNK = 256;
/**
 * Every firing decision, cancellation and disarm of this agent's reminders holds this lease:
 * one lease per chunk of decisions costs far less than one per reminder, and a cancel waits at
 * most one chunk.
 */
const LEASE = "reminders-fire";
/** A due reminder whose lease another process holds is looked at again this much later. */
const RETRY_MS = 1_000;
/**
 * A delivery refused because the session's turn lease is held elsewhere is tried again, once a
 * second, this many times: longer than a turn lease outlives a crashed process (30 s by default),
 * so a lease orphaned by a crash between taking it and recording the turn delays the reminder
 * instead of losing it (docs/design/timed-work.md "Reminders").
 */
const BUSY_ATTEMPTS = 45;

export interface ReminderServiceDeps {
  storage: StorageDriver;
  exclusive: Exclusive;
  sessions: SessionEntry;
  store: SessionRecordsView;
  timers: TimerPort;
  /** Timer keys are `<keyPrefix>/reminders/<id>`. */
  keyPrefix: string;
  now: () => number;
  logger: HostLogger;
  /** Whether the model has `reminders_cancel` (the standing instruction mentions it). */
  cancelTool: boolean;
  /** Host services run handlers see as `host` (kv, reminders, ...), as tools do. */
  host: () => ToolHostServices;
}

/** Where a reminder's conversation is, for per-conversation listing and caps. */
interface Conversation {
  channelId: string;
  continuationToken: string;
  sessionId?: string;
}

export interface FireOutcome {
  fired: boolean;
  record: ReminderRecord | undefined;
}

export class ReminderService {
  readonly #deps: ReminderServiceDeps;
  readonly #records: ReminderStore;
  readonly #index = new DueIndex();
  readonly #conversations = new Map<string, Conversation>();
  readonly #handlers = new Map<string, RunHandler>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;

  constructor(deps: ReminderServiceDeps) {
    this.#deps = deps;
    this.#records = new ReminderStore(deps.storage);
  }

  /** The unbound facade host code gets as `host.reminders`. */
  readonly facade: RemindersFacade = {
    create: (input) => this.create(input),
    list: (filter) => this.list(filter),
    cancel: (id) => this.cancel(id),
  };

  /**
   * Loads the armed reminders into the due index and arms the timer port. Run-form reminders
   * lost their handler with the process that created them: they are disarmed
   * (`handler_lost_on_restart`). Reminders that came due while the host was down are due now.
   */
  async start(): Promise<void> {
    for (const record of await this.#records.all()) {
      if (record.status !== "armed") continue;
      if (record.form === "run") {
        await this.#disarm(record.id, "handler_lost_on_restart");
        continue;
      }
      this.#track(record);
    }
  }

  async create(input: unknown, options: CheckOptions & { sessionId?: string; maxPerConversation?: number } = {}): Promise<ReminderRecord> {
    const checked = await checkReminderInput(input, options);
    const { channelId, continuationToken } = checked;
    const sessionId = options.sessionId ?? (await this.#deps.store.findByToken(channelId, continuationToken));
    if (sessionId === undefined && channelId === "http") {
      // HTTP tokens are minted by the host and rotate; a key that points nowhere never will.
      throw new HTTPError({ status: 400, code: "invalid_request", message: "no conversation of the http channel has that continuation token" });
    }
    if (options.maxPerConversation !== undefined) {
      const armed = [...this.#conversations.values()].filter((c) => sameConversation(c, { channelId, continuationToken, sessionId })).length;
      if (armed >= options.maxPerConversation) {
        throw new HTTPError({ status: 400, code: "invalid_request", message: `this conversation already has ${armed} armed reminders (at most ${options.maxPerConversation}); cancel one first` });
      }
    }
    const now = this.#deps.now();
    const due = firstFireAt(cadenceOf(checked.cadence), now);
    if (due === null) throw new HTTPError({ status: 400, code: "invalid_request", message: "the cron expression never fires" });
    const record: ReminderRecord = {
      id: newReminderId(),
      purpose: checked.purpose,
      channelId,
      continuationToken,
      ...(sessionId === undefined ? {} : { sessionId }),
      form: checked.run ? "run" : "prompt",
      ...checked.cadence,
      ...(checked.prompt === undefined ? {} : { prompt: checked.prompt }),
      ...(checked.until === undefined ? {} : { until: checked.until }),
      nextFireAt: iso(due),
      fireCount: 0,
      status: "armed",
      createdAt: iso(now),
    };
    if (checked.run) this.#handlers.set(record.id, checked.run);
    await this.#records.put(record);
    this.#track(record);
    return record;
  }

  async get(id: string): Promise<ReminderRecord | undefined> {
    return this.#records.get(id);
  }

  /** Armed reminders known to this process, or every stored one with `all`; oldest first. */
  async list(filter: ReminderListFilter & { sessionId?: string } = {}): Promise<ReminderRecord[]> {
    let records: ReminderRecord[];
    if (filter.all) {
      records = await this.#records.all();
    } else {
      const ids = [...this.#conversations].filter(([, c]) => matches(c, filter)).map(([id]) => id);
      const read = await Promise.all(ids.map((id) => this.#records.get(id)));
      records = read.filter((record): record is ReminderRecord => record?.status === "armed");
    }
    return records.filter((record) => matches(record, filter)).sort(byCreation);
  }

  /** Stops a reminder; undefined when it does not exist. Stopping a stopped one changes nothing. */
  async cancel(id: string): Promise<ReminderRecord | undefined> {
    if (!isReminderId(id)) return undefined;
    const outcome = await this.#deps.exclusive(LEASE, async () => {
      const record = await this.#records.get(id);
      if (!record || record.status !== "armed") return record;
      const stopped: ReminderRecord = { ...record, status: "stopped", nextFireAt: null };
      await this.#records.put(stopped);
      return stopped;
    }, { waitMs: 5_000 });
    if (!outcome.ok) throw conflict("reminder_busy", "reminders are being fired; try again");
    if (outcome.value) this.#forget(id);
    return outcome.value;
  }

  /** Fires what is due at `now`; resolves with the ids that fired. */
  async tick(now: number): Promise<string[]> {
    if (this.#closed) return [];
    const due = this.#index.takeDue(now);
    const fired: string[] = [];
    const work = async (): Promise<void> => {
      // Decisions are taken a chunk at a time under one lease; each chunk's deliveries overlap
      // the next chunk's decisions.
      let delivering: Promise<void> = Promise.resolve();
      for (let start = 0; start < due.length; start += CLAIM_CHUNK) {
        const chunk = due.slice(start, start + CLAIM_CHUNK);
        let claimed: ReminderRecord[];
        try {
          claimed = await this.#claim(chunk, { now, mode: "due" });
        } catch (error) {
          this.#deps.logger.error(`${chunk.length} due reminder(s) could not be fired; retrying`, error);
          for (const id of chunk) if (this.#conversations.has(id) && !this.#closed) this.#arm(id, this.#deps.now() + RETRY_MS);
          continue;
        }
        fired.push(...claimed.map((record) => record.id));
        await delivering;
        delivering = mapLimit(claimed, FIRE_CONCURRENCY, (record) => this.#deliver(record)).then(() => {});
      }
      await delivering;
    };
    await this.#hold(work());
    return fired;
  }

  /**
   * Fires one reminder. `due` fires it only when it is due by `now` (plus `leewayMs`): the
   * internal route. `force` fires an armed reminder whatever its due time: the dev route.
   */
  fire(id: string, options: { now: number; mode: "due" | "force"; leewayMs?: number }): Promise<FireOutcome> {
    return this.#hold(
      (async () => {
        const [record] = await this.#claim([id], options);
        if (!record) return { fired: false, record: await this.#records.get(id) };
        await this.#deliver(record);
        return { fired: true, record: await this.#records.get(id) };
      })(),
    );
  }

  /** Stops firing and waits up to `timeoutMs` for firings in flight (run handlers included). */
  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled(this.#inFlight), timeout]);
    clearTimeout(timer);
  }

  // --- internals ---

  /**
   * Decides, under the lease, which of `ids` fire now, and advances their records (fireCount,
   * nextFireAt, status) before anything is delivered. Resolves with the advanced records.
   */
  async #claim(ids: string[], options: { now: number; mode: "due" | "force"; leewayMs?: number }): Promise<ReminderRecord[]> {
    const { now, mode } = options;
    const outcome = await this.#deps.exclusive(
      LEASE,
      () =>
        mapLimit(ids, FIRE_CONCURRENCY, async (id) => {
          const record = await this.#records.get(id);
          if (!record || record.status !== "armed" || record.nextFireAt === null) return { id, kind: "ended" as const, record };
          const due = Date.parse(record.nextFireAt);
          if (mode === "due" && due > now + (options.leewayMs ?? 0)) return { id, kind: "early" as const, record };
          if (record.form === "run" && !this.#handlers.has(id)) return { id, kind: "elsewhere" as const, record };
          const next = nextFireAt(cadenceOf(record), due, now);
          const updated: ReminderRecord = {
            ...record,
            fireCount: record.fireCount + 1,
            lastFiredAt: iso(now),
            nextFireAt: next === null ? null : iso(next),
            status: next === null ? "stopped" : "armed",
          };
          await this.#records.put(updated);
          return { id, kind: "claimed" as const, record: updated };
        }),
      mode === "force" ? { waitMs: 5_000 } : {},
    );
    if (!outcome.ok) {
      // Another process is deciding right now; look again shortly.
      for (const id of ids) if (this.#conversations.has(id) && !this.#closed) this.#arm(id, now + RETRY_MS);
      if (mode === "force") throw conflict("reminder_busy", "reminders are being fired; try again");
      return [];
    }
    const claimed: ReminderRecord[] = [];
    for (const { id, kind, record } of outcome.value) {
      if (kind === "claimed") {
        if (record.status === "armed") this.#track(record);
        else this.#forget(id, { keepHandler: record.form === "run" });
        claimed.push(record);
      } else if (kind === "early" && record) {
        this.#track(record);
      } else {
        // Ended, or a run-form reminder whose handler lives in another process.
        this.#forget(id);
        if (mode === "force" && kind === "elsewhere") throw conflict("reminder_not_armed", "this run-form reminder's handler lives in another process");
      }
    }
    return claimed;
  }

  async #deliver(record: ReminderRecord, attempt = 0): Promise<void> {
    if (attempt === 0) {
      this.#deps.logger.info(`reminder ${record.id} fired (${record.purpose}, fire ${record.fireCount})`, {
        event: "reminder.fired",
        reminderId: record.id,
        fireCount: record.fireCount,
      });
    }
    try {
      if (record.form === "prompt") {
        await deliverToConversation(this.#deps, record, reminderMessage(record, this.#deps.cancelTool));
        return;
      }
      const handler = this.#handlers.get(record.id);
      if (record.status !== "armed") this.#handlers.delete(record.id);
      if (!handler) return;
      const action = await runReminderHandler(this.#deps, handler, record);
      if (action === "stop") await this.cancel(record.id);
    } catch (error) {
      if (error instanceof ConversationGone) {
        this.#deps.logger.warn(`reminder ${record.id} (${record.purpose}): its conversation is gone (${error.reason}); disarmed`);
        await this.#disarm(record.id, error.reason);
        return;
      }
      // Busy in another process: the record already counts this firing, so only this process
      // can still deliver it. Try again shortly rather than drop it (at most once still holds).
      if (record.form === "prompt" && HTTPError.isError(error) && error.code === "session_busy" && attempt < BUSY_ATTEMPTS && !this.#closed) {
        if (attempt === 0) this.#deps.logger.warn(`reminder ${record.id} (${record.purpose}): its session is busy in another process; trying again every second`);
        void this.#hold(new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RETRY_MS);
          (timer as { unref?: () => void }).unref?.();
        }).then(() => (this.#closed ? undefined : this.#deliver(record, attempt + 1))));
        return;
      }
      this.#deps.logger.error(`reminder ${record.id} (${record.purpose}) could not be delivered`, error);
    }
  }

  async #disarm(id: string, reason: string): Promise<void> {
    await this.#deps.exclusive(LEASE, async () => {
      const record = await this.#records.get(id);
      if (!record || record.status !== "armed") return;
      await this.#records.put({ ...record, status: "disarmed", disarmReason: reason, nextFireAt: null });
    }, { waitMs: 5_000 });
    this.#forget(id);
  }

  /** Indexes an armed record and arms the timer port with its due time. */
  #track(record: ReminderRecord): void {
    if (record.nextFireAt === null) return;
    this.#conversations.set(record.id, {
      channelId: record.channelId,
      continuationToken: record.continuationToken,
      ...(record.sessionId === undefined ? {} : { sessionId: record.sessionId }),
    });
    this.#arm(record.id, Date.parse(record.nextFireAt));
  }

  #arm(id: string, at: number): void {
    this.#index.set(id, at);
    if (!this.#closed) this.#deps.timers.arm(timerKey(this.#deps.keyPrefix, id), at);
  }

  #forget(id: string, options: { keepHandler?: boolean } = {}): void {
    this.#index.delete(id);
    this.#conversations.delete(id);
    if (!options.keepHandler) this.#handlers.delete(id);
    this.#deps.timers.disarm(timerKey(this.#deps.keyPrefix, id));
  }

  #hold<T>(promise: Promise<T>): Promise<T> {
    this.#inFlight.add(promise);
    void promise.then(
      () => this.#inFlight.delete(promise),
      () => this.#inFlight.delete(promise),
    );
    return promise;
  }
}

export const timerKey = (prefix: string, id: string): string => `${prefix}/reminders/${id}`;

// --- internals ---

const iso = (ms: number): string => new Date(ms).toISOString();

function byCreation(a: ReminderRecord, b: ReminderRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function sameConversation(a: Conversation, b: Conversation): boolean {
  if (a.channelId !== b.channelId) return false;
  if (a.sessionId !== undefined && a.sessionId === b.sessionId) return true;
  return a.continuationToken === b.continuationToken;
}

function matches(record: Conversation, filter: ReminderListFilter & { sessionId?: string }): boolean {
  if (filter.channelId !== undefined && record.channelId !== filter.channelId) return false;
  if (filter.sessionId !== undefined) {
    return record.sessionId === filter.sessionId || (filter.continuationToken !== undefined && record.continuationToken === filter.continuationToken);
  }
  return filter.continuationToken === undefined || record.continuationToken === filter.continuationToken;
}
