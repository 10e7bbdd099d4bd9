import * as v from "valibot";

const message = v.pipe(v.string(), v.minLength(1, "message must not be empty"), v.maxLength(200_000));
const title = v.pipe(v.string(), v.maxLength(500));

/** Workspace files written before the turn: relative path → contents. */
const workspaceFiles = v.record(
  v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(1024),
    v.check(isWorkspaceRelative, "workspaceFiles paths must be relative, /-separated and stay inside the workspace (no .. segments)"),
  ),
  v.string(),
);

export const createSessionBody = v.strictObject({
  message,
  title: v.optional(title),
  workspaceFiles: v.optional(workspaceFiles),
  state: v.optional(v.record(v.string(), v.unknown())),
});
export type CreateSessionBody = v.InferOutput<typeof createSessionBody>;

export const followUpBody = v.strictObject({
  continuationToken: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)),
  message,
  workspaceFiles: v.optional(workspaceFiles),
});
export type FollowUpBody = v.InferOutput<typeof followUpBody>;

/** `POST /v1/session/:id/fork`: the last event the fork keeps, and a message to continue it with. */
export const forkSessionBody = v.strictObject({
  atIndex: v.pipe(v.number("atIndex must be a number"), v.integer("atIndex must be an integer"), v.minValue(0, "atIndex must not be negative")),
  message: v.optional(message),
});

/** `PATCH /v1/session/:id`: the session's new title. */
export const renameSessionBody = v.strictObject({
  title: v.pipe(v.string(), v.trim(), v.minLength(1, "title must not be empty"), v.maxLength(200, "title is at most 200 characters")),
});

export const streamQuery = v.object({
  startIndex: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,15}$/, "startIndex must be a non-negative integer"),
      v.transform(Number),
    ),
  ),
});

/** A relative path that cannot leave the directory it is resolved in (the runtime checks links too). */
function isWorkspaceRelative(path: string): boolean {
  if (path.startsWith("/") || path.includes("\\") || path.includes("\0") || /^[A-Za-z]:/.test(path)) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}
