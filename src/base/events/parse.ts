/**
 * Reading stream lines as a client: the envelope is checked, the payload is left to the reader
 * (a newer host may send types this version does not know).
 * @module
 */
import * as v from "valibot";
import type { EventEnvelope } from "./vocabulary.ts";

export const eventEnvelopeSchema = v.looseObject({
  type: v.string(),
  index: v.pipe(v.number(), v.integer(), v.minValue(0)),
  sessionId: v.string(),
  turnId: v.optional(v.string()),
  at: v.string(),
  data: v.optional(v.record(v.string(), v.unknown()), {}),
});

/** Parses one NDJSON line into an envelope; throws on a line that is not one. */
export function parseEventLine(line: string): EventEnvelope {
  const result = v.safeParse(eventEnvelopeSchema, JSON.parse(line));
  if (!result.success) throw new Error(`not an event line: ${v.summarize(result.issues)}`);
  return result.output;
}
