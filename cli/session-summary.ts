/**
 * One session's summary, as the listing shows it (`GET /v1/session/:id`): what `session` and
 * `chat` show, without paging through every session to find it (docs/guide/cli.md "Listing sessions").
 * @module
 */
import { ApiError, sessionPath } from "./api-client.ts";
import type { ApiClient } from "./api-client.ts";
import type { SessionSummary } from "../src/entries/events.ts";

/** The summary, or null when the session is unknown or not the caller's to read. */
export async function sessionSummary(client: ApiClient, sessionId: string): Promise<SessionSummary | null> {
  try {
    return (await client.getJson<{ session: SessionSummary }>(sessionPath(sessionId))).session;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 403)) return null;
    throw error;
  }
}
