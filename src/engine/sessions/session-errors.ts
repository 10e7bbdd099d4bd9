/**
 * The refusals of the session operations (docs/guide/http-api.md "Auth" and "Errors"), shared by
 * the local service, its reads and the routes.
 * @module
 */
import { HTTPError, conflict, notFound } from "../../base/errors.ts";

export const sessionNotFound = (): HTTPError => notFound("session_not_found", "no such session");

export const forbidden = (): HTTPError =>
  new HTTPError({ status: 403, code: "forbidden", message: "the session belongs to another principal" });

export const stale = (): HTTPError =>
  conflict("stale_continuation_token", "the continuation token is not current; use the token from the latest response");

/** Whether `error` is the refusal a turn running elsewhere (or an admission in progress) causes. */
export const isBusyRefusal = (error: unknown): boolean => error instanceof HTTPError && error.code === "session_busy";
