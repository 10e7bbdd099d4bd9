/**
 * The session operations as the engine's callers name them: `SessionService` is the face every
 * placement strategy offers (../../base/definitions/session-face.ts), whichever was chosen at
 * composition (src/host/session-placement.ts).
 * @module
 */
export type { Sessions as SessionService, Viewer } from "../../base/definitions/session-face.ts";
export type { CreateSessionInput, FollowUpInput, SendOptions, SendResult } from "../../base/definitions/sessions.ts";
export { sessionNotFound } from "./session-errors.ts";
