/**
 * A/B experiments declared in agent config (docs/design/experiments.md: `ab.assigned`): arms that
 * vary the model, its params or the instructions, assigned once per session and kept for every
 * turn.
 * @module
 */
import type { ModelParam } from "./project.ts";

/** One variant of an experiment. */
export interface ExperimentArm {
  /** Unique within its experiment; recorded in `ab.assigned` and on the session. */
  id: string;
  /**
   * Relative share of new sessions. A weight of 0 pauses the arm: it gets no new sessions while
   * the sessions already assigned to it keep it. At least one arm must have a positive weight.
   */
  weight: number;
  /** Replaces the agent's model for this arm's sessions. @default the agent's model */
  model?: string | { id: string; params?: ModelParam[] };
  /** Model params merged over those of the arm's (or the agent's) model. */
  params?: ModelParam[];
  /** Replaces the agent's whole system prompt (`instructions.md` plus inline instructions). */
  instructions?: string;
}

export interface ExperimentDefinition {
  /** Unique among the agent's experiments. */
  id: string;
  arms: ExperimentArm[];
}

/** One sticky enrollment, as stored on the session record and emitted as `ab.assigned` data. */
export interface AbAssignment {
  experimentId: string;
  armId: string;
}
