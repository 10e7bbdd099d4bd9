/**
 * Weighted, sticky arm assignment: each new session draws one arm per experiment, once.
 * @module
 */
import type { AbAssignment, ExperimentArm, ExperimentDefinition } from "../../base/definitions/experiments.ts";

/** A uniform number in [0, 1). */
export type RandomSource = () => number;

/** Web Crypto backed: assignment must not be predictable from earlier sessions. */
export const cryptoRandom: RandomSource = () => crypto.getRandomValues(new Uint32Array(1))[0]! / 2 ** 32;

/**
 * Draws an arm in proportion to its weight; arms with weight 0 (paused) are never drawn.
 * Returns undefined when no arm has a positive weight (the loader reports that as an error).
 */
export function pickArm(arms: readonly ExperimentArm[], random: RandomSource = cryptoRandom): ExperimentArm | undefined {
  const eligible = arms.filter((arm) => Number.isFinite(arm.weight) && arm.weight > 0);
  const total = eligible.reduce((sum, arm) => sum + arm.weight, 0);
  if (total <= 0) return undefined;
  let point = random() * total;
  for (const arm of eligible) {
    point -= arm.weight;
    if (point < 0) return arm;
  }
  // Floating-point rounding can leave a sliver past the last arm.
  return eligible.at(-1);
}

/** One assignment per experiment that has a drawable arm, in declaration order. */
export function drawAssignments(experiments: readonly ExperimentDefinition[], random: RandomSource = cryptoRandom): AbAssignment[] {
  const out: AbAssignment[] = [];
  for (const experiment of experiments) {
    const arm = pickArm(experiment.arms, random);
    if (arm) out.push({ experimentId: experiment.id, armId: arm.id });
  }
  return out;
}

/** The arm a stored assignment points at, if the experiment and arm still exist. */
export function armOf(experiments: readonly ExperimentDefinition[], assignment: AbAssignment): ExperimentArm | undefined {
  return experiments.find((e) => e.id === assignment.experimentId)?.arms.find((a) => a.id === assignment.armId);
}
