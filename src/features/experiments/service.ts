/**
 * The per-agent A/B service: draws a new session's arms, applies them to each turn and reports
 * live totals (`GET /v1/abs`).
 * @module
 */
import type { EventLogView } from "../../base/events/log-view.ts";
import type { SessionRecordsView } from "../../base/definitions/sessions.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import { type RandomSource, cryptoRandom, drawAssignments } from "../../engine/experiments/assign.ts";
import { type AbReport, AbMetrics } from "./metrics.ts";
import type { AbAssignment, ExperimentDefinition } from "../../base/definitions/experiments.ts";

/** Sessions with this `purpose` are never enrolled (docs/guide/agent-projects.md "Sending into sessions": send options). */
export const EVAL_PURPOSE = "eval";

export class ExperimentService {
  readonly definitions: readonly ExperimentDefinition[];
  readonly #metrics: AbMetrics;
  readonly #random: RandomSource;

  constructor(deps: { definitions: readonly ExperimentDefinition[] | undefined; log: EventLogView; store: SessionRecordsView; random?: RandomSource }) {
    this.definitions = deps.definitions ?? [];
    this.#metrics = new AbMetrics({ experiments: this.definitions, log: deps.log, store: deps.store });
    this.#random = deps.random ?? cryptoRandom;
  }

  /**
   * The arms of a session being created, one per experiment; empty for eval traffic or when no
   * experiment is declared. Call before the session's first event so its turns are counted live.
   */
  enroll(sessionId: string, purpose: string | undefined): AbAssignment[] {
    if (this.definitions.length === 0 || purpose === EVAL_PURPOSE) return [];
    const assignments = drawAssignments(this.definitions, this.#random);
    if (assignments.length > 0) this.#metrics.track(sessionId);
    return assignments;
  }

  /** Live totals; `visible` picks the sessions whose assignments are listed. */
  report(visible?: (record: SessionRecord) => boolean): Promise<AbReport> {
    return this.#metrics.report(visible);
  }
}
