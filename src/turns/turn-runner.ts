import type { SessionRecord } from "../sessions/session-store.ts";
import type { TurnInput } from "./run-turn.ts";

/** What an agent contributes to each of its turns: model, instructions, tools. */
export type TurnSetup = Pick<TurnInput, "system" | "params" | "model" | "tools" | "maxSteps" | "ready">;

/** The turn a setup is prepared for (tools need its id, its event sink and its signal). */
export interface TurnHandle {
  turnId: string;
  emit: TurnInput["emit"];
  signal: AbortSignal;
}

export interface TurnRunner {
  /** May prepare asynchronously (the local workspace); failures belong in `model: {error}`, not in a rejection. */
  prepare(record: SessionRecord, turn: TurnHandle): TurnSetup | Promise<TurnSetup>;
}
