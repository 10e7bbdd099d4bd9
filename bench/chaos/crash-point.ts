/**
 * One crash point (docs/reliability.md "Crash points"): the seeded workload runs against a host
 * whose store crashes at its Nth operation; that host is abandoned without draining (a dead
 * process drains nothing and its bodies count nothing: ./ledger.ts); what the inner store was
 * handed settles; a new host opens the same durable state, runs its start-up recovery, and the
 * oracles (./oracles.ts) check it.
 * @module
 */
import { createHost } from "../../src/host/host.ts";
import { noTimers } from "../../src/base/ports/timers.ts";
import { createScriptedModel } from "../../src/testing.ts";
import type { StorageDriver } from "../../src/base/storage/types.ts";
import type { LanguageModelPort, ModelSpec } from "../../src/base/ports/model.ts";
import type { RuntimePort } from "../../src/base/ports/runtime.ts";
import type { AgentHost } from "../../src/host/types.ts";
import { type CrashMode, crashingStore } from "./crash-store.ts";
import { type Ledger, newLedger } from "./ledger.ts";
import { noLandings } from "./landing-oracles.ts";
import { checkOracles, type Verdict } from "./oracles.ts";
import type { SettleOptions } from "./settle.ts";
import { errorMessage } from "../../src/base/errors.ts";
import type { HostLogger } from "../../src/base/logging.ts";
import { AGENT, chaosProject, SUBAGENT_MODEL } from "./project.ts";
import { type StoreName, storeState } from "./stores.ts";
import { type Acknowledged, type Clock, runWorkload, T0 } from "./workload.ts";

const quiet: HostLogger = { debug() {}, info() {}, warn() {}, error() {} };
// `CHAOS_LOG=1` shows what the hosts log (warnings and errors), to see why a replayed point failed.
const logger: HostLogger = process.env["CHAOS_LOG"] ? { ...quiet, warn: console.warn, error: console.error } : quiet;

/**
 * A runtime with no disk: the harness tools the chaos agent allows are `task` alone, which needs a
 * session workspace to exist as a name, not as files.
 */
const noDisk: RuntimePort = {
  sessionWorkspace: async (sessionId) => `/chaos/${sessionId}`,
  scratchWorkspace: async () => ({ path: "/chaos/scratch", remove: async () => {} }),
  prepareWorkspace: async () => {},
};

/** The subagent's model: the scripted one, its steps in flight counted per host (a step that never ends is a child left running). */
function countedSubagentModel(model: LanguageModelPort, ledger: Ledger, generation: number): LanguageModelPort {
  const steps = (ledger.subagentSteps ??= new Map());
  return {
    id: SUBAGENT_MODEL,
    async *stream(request) {
      steps.set(generation, (steps.get(generation) ?? 0) + 1);
      try {
        yield* model.stream(request);
      } finally {
        steps.set(generation, steps.get(generation)! - 1);
      }
    },
  };
}

/**
 * The recovered host's logger: what it warns of or fails at is kept, so a violation at a point
 * that does not replay still says what the host saw (printed with the violation).
 */
function keptLog(): { logger: HostLogger; lines: string[] } {
  const lines: string[] = [];
  return {
    logger: {
      ...quiet,
      warn: (message) => {
        lines.push(`warn: ${message}`);
        logger.warn(message);
      },
      error: (message, cause) => {
        lines.push(`error: ${message}${cause === undefined ? "" : ` (${errorMessage(cause)})`}`);
        logger.error(message, cause);
      },
    },
    lines,
  };
}

function hostOn(storage: StorageDriver, ledger: Ledger, alive: () => boolean, clock: Clock, generation: number, hostLogger: HostLogger = logger, wrapModel: ModelWrapper = (model) => model): AgentHost {
  const model = wrapModel(createScriptedModel());
  const subagentModel = countedSubagentModel(model, ledger, generation);
  return createHost({
    agents: [{ slug: AGENT, project: chaosProject(ledger, alive, generation), storage, runtime: noDisk }],
    models: { resolve: (spec: ModelSpec) => (spec.id === SUBAGENT_MODEL ? subagentModel : model) },
    logger: hostLogger,
    drainTimeoutMs: 50,
    // Only the workload's ticks fire schedules, at the workload's clock.
    timers: noTimers,
    // A lease the crash orphaned (taken, the turn never recorded) expires in seconds, not 30.
    leaseTtlMs: 3_000,
    now: () => clock.now,
  });
}

/** Resolves once the store has crashed, or has seen no operation for 100 ms. */
async function quietOrCrashed(crashing: { operations(): number; crashed(): boolean }): Promise<void> {
  let seen = -1;
  let since = Date.now();
  while (!crashing.crashed() && Date.now() - since < 100) {
    if (crashing.operations() !== seen) {
      seen = crashing.operations();
      since = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * Ends what is left of the abandoned host once the point is judged: a dead process runs no
 * timers, but an abandoned host object keeps its lease renewals, approval polls and repair
 * retries going, and a long sweep piles thousands of them up in one worker until its event loop
 * lags seconds behind (docs/design/chaos-seed28.md). Its store is dead, so nothing it does on the
 * way out reaches the state; the wait is bounded, as a turn held by a body that never returns
 * may not settle.
 */
async function closeAbandoned(host: AgentHost): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([host.close().catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, ABANDONED_CLOSE_MS)))]);
  clearTimeout(timer);
}

/** How long the abandoned host's close is waited for. */
const ABANDONED_CLOSE_MS = 2_000;

export interface PointResult extends Verdict {
  operations: number;
  /** What the recovered host warned of or failed at, when the point has violations. */
  hostLog?: string[];
  /** Acknowledged messages checked. */
  checked: number;
}

/** Wraps the agent's model (its subagent's too): how a test slows the recovered host down. */
export type ModelWrapper = (model: LanguageModelPort) => LanguageModelPort;

/** How a point is judged: the settling deadline and late window (./settle.ts), and what a test injects into the recovered host. */
export interface PointOptions extends SettleOptions {
  recoveredModel?: ModelWrapper;
  /** Leaves the abandoned host running after the point, as the harness once did: the baseline of ./abandoned.ts. */
  keepAbandoned?: boolean;
}

/** What a test may change to prove the oracles can fail: run on what the crashed run left, before the new host opens. */
export type Tamper = (ledger: Ledger, acknowledged: Acknowledged, storage: StorageDriver) => Promise<void> | void;

/** `crashAt` 0 runs the workload uncrashed and drained: it counts the operations to sweep. */
export async function crashPoint(store: StoreName, seed: number, crashAt: number, mode: CrashMode = "lost", tamper?: Tamper, options: PointOptions = {}): Promise<PointResult> {
  const state = await storeState(store);
  const ledger = newLedger();
  const clock: Clock = { now: T0 };
  const inner = state.open();
  const crashing = crashingStore(inner, crashAt, mode);
  const first = hostOn(crashing.driver, ledger, () => !crashing.crashed(), clock, 0);
  try {
    // A crash point may fall in the first host's own start-up recovery.
    await first.ready().catch(() => {});
    const acknowledged = await runWorkload(first, seed, clock, crashing.crashed);
    // The run goes on after the workload's last request (turns finish): until the crash, or
    // until the store has been quiet for a while (a crash point past the end of this run).
    await quietOrCrashed(crashing);
    if (crashAt === 0) {
      const operations = crashing.operations();
      acknowledged.stopFollowers();
      await first.close();
      return { operations, violations: [], late: [], checked: 0, restartedTurns: 0, unknownOutcomes: 0, decisions: 0, slots: 0, reminders: 0, ...noLandings() };
    }
    // Past this run's last operation (or a machine so loaded the store fell quiet): crash here,
    // so the abandoned host never runs beside the next one.
    crashing.crash();
    acknowledged.stopFollowers();
    // Abandoned, not closed until the point is judged. Writes already handed to the store finish, as on a disk.
    await crashing.quiesced();
    if (store !== "memory") await inner.close().catch(() => {});
    const reopened = store === "memory" ? inner : state.open();
    await tamper?.(ledger, acknowledged, reopened);
    const kept = keptLog();
    const second = hostOn(reopened, ledger, () => true, clock, 1, kept.logger, options.recoveredModel);
    try {
      await second.ready();
      const checked = [...acknowledged.messages.values()].reduce((sum, tags) => sum + tags.length, 0);
      const verdict = await checkOracles(second, reopened, acknowledged, ledger, clock, options);
      // Kept only beside a violation: what the recovered host saw, for a point that does not replay.
      return { operations: crashing.operations(), checked, ...verdict, ...(verdict.violations.length > 0 && kept.lines.length > 0 ? { hostLog: kept.lines } : {}) };
    } finally {
      await second.close();
      if (store !== "memory") await reopened.close();
    }
  } finally {
    if (crashAt > 0 && !options.keepAbandoned) await closeAbandoned(first);
    state.dispose();
  }
}
