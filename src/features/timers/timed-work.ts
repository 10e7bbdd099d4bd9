/**
 * The timed work of one agent: its cron runner, its reminders and the expiry of its MCP tool
 * tasks, over the host's timer port.
 * `tick(now)` fires whatever is due; the built-in clock calls it, and so can a platform
 * (Workers' `scheduled()`), since all state is in storage.
 * @module
 */
import type { McpTaskExpiry } from "../mcp/task-expiry.ts";
import type { ReminderService } from "../reminders/service.ts";
import type { ScheduleRunner, SlotFiring } from "../schedules/runner.ts";

export interface TimedWorkTick {
  schedules: SlotFiring[];
  /** Ids of the reminders that fired. */
  reminders: string[];
}

export interface TimedWorkOptions {
  /**
   * Builds the cron runner; `waitUntil` takes its run handlers' background work, which `close`
   * waits for.
   */
  schedules: (waitUntil: (promise: Promise<unknown>) => void) => ScheduleRunner;
  reminders: ReminderService;
  /** Sweeps expired MCP tool tasks (docs/design/mcp-task-expiry.md). */
  mcpTasks?: McpTaskExpiry;
  /** `--no-control-plane`: the internal fire routes are mounted. */
  internalRoutes: boolean;
  now: () => number;
}

export class TimedWork {
  readonly schedules: ScheduleRunner;
  readonly reminders: ReminderService;
  readonly mcpTasks: McpTaskExpiry | undefined;
  readonly internalRoutes: boolean;
  /** The host's clock. */
  readonly now: () => number;
  /** Run-handler background work (`waitUntil`), awaited on close. */
  readonly #background = new Set<Promise<unknown>>();
  readonly #ticks = new Set<Promise<unknown>>();
  #closed = false;

  constructor(options: TimedWorkOptions) {
    this.schedules = options.schedules((promise) => this.waitUntil(promise));
    this.reminders = options.reminders;
    this.mcpTasks = options.mcpTasks;
    this.internalRoutes = options.internalRoutes;
    this.now = options.now;
  }

  async start(): Promise<void> {
    await this.schedules.start();
    await this.reminders.start();
    await this.mcpTasks?.start();
  }

  tick(now: number): Promise<TimedWorkTick> {
    if (this.#closed) return Promise.resolve({ schedules: [], reminders: [] });
    const work = Promise.all([this.schedules.tick(now), this.reminders.tick(now), this.mcpTasks?.tick(now)]).then(([schedules, reminders]) => ({ schedules, reminders }));
    this.#hold(this.#ticks, work);
    return work;
  }

  waitUntil(promise: Promise<unknown>): void {
    this.#hold(this.#background, promise);
  }

  /** Stops firing; waits for ticks in flight, then up to `timeoutMs` for background work. */
  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    this.schedules.close();
    this.mcpTasks?.close();
    await Promise.allSettled(this.#ticks);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.#background, this.reminders.close(timeoutMs)]), timeout]);
    clearTimeout(timer);
  }

  // --- internals ---

  #hold(set: Set<Promise<unknown>>, promise: Promise<unknown>): void {
    set.add(promise);
    const forget = (): void => void set.delete(promise);
    promise.then(forget, forget);
  }
}
