import type { SessionRecord } from "../sessions/session-store.ts";
import type { TurnInput } from "./run-turn.ts";

/** What an agent contributes to each of its turns: model, instructions, tools. */
export type TurnSetup = Pick<TurnInput, "system" | "params" | "model" | "tools" | "maxSteps">;

export interface TurnRunner {
  prepare(record: SessionRecord): TurnSetup;
}
