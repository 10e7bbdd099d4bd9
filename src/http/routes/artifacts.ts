/**
 * Artifact routes (docs/design/tools.md "Artifacts"): the list, newest-updated first a page at a
 * time (docs/design/listing.md "Artifacts"), and the payload as an attachment. A caller sees the artifacts of the sessions they may read (the rules of
 * `/v1/sessions`); anything else answers as if it did not exist.
 */
import * as v from "valibot";
import { validate } from "../../base/validate.ts";
import { safeFilename } from "../../features/artifacts/content.ts";
import { type ArtifactPosition, isArtifactId } from "../../features/artifacts/store.ts";
import type { ArtifactRecord } from "../../base/definitions/artifacts.ts";
import { HTTPError, notFound } from "../../base/errors.ts";
import { json } from "../../base/responses.ts";
import { type RouteContext, defineRoute } from "../route.ts";
import { viewer } from "./sessions.ts";
import type { ArtifactListResponse } from "../response-types.ts";
import { cursorOf, pageOf, pageQuery } from "../paging.ts";

const listQuery = v.object({
  kind: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  sessionId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  ...pageQuery,
});

/** How many candidates one read of the store takes while filling a page the caller may only partly see. */
const CANDIDATES = 256;

export const listArtifacts = defineRoute({
  method: "GET",
  path: "/v1/artifacts",
  auth: "agent",
  summary: "Artifacts of the sessions the caller may read, newest-updated first",
  querySchema: listQuery,
  async handler(context) {
    const query = await validate(Object.fromEntries(context.url.searchParams), listQuery, "query");
    const { limit, after } = pageOf(query, (text) => (positionOf(text) ? text : undefined));
    const filter = {
      ...(query.kind === undefined ? {} : { kind: query.kind }),
      ...(query.sessionId === undefined ? {} : { sessionId: query.sessionId }),
    };
    // The limit applies to what the caller may see, so ownership is checked before counting; one
    // more than the limit says whether another page follows.
    const readable = readableSessions(context);
    const artifacts: ArtifactRecord[] = [];
    let from = after === undefined ? undefined : positionOf(after);
    let more = false;
    for (;;) {
      const candidates = await context.agent.artifacts.list({ ...filter, limit: CANDIDATES, ...(from ? { after: from } : {}) });
      for (const record of candidates) {
        if (!(await readable(record.sessionId))) continue;
        if (artifacts.length === limit) {
          more = true;
          break;
        }
        artifacts.push(record);
      }
      if (more || candidates.length < CANDIDATES) break;
      from = candidates.at(-1)!;
    }
    const last = artifacts.at(-1);
    return json({ artifacts, nextCursor: cursorOf(more && last ? `${last.updatedAt} ${last.id}` : undefined) } satisfies ArtifactListResponse);
  },
});

export const artifactContent = defineRoute({
  method: "GET",
  path: "/v1/artifacts/:id/content",
  auth: "agent",
  summary: "An artifact's payload, as an attachment",
  async handler(context) {
    const id = context.params["id"] ?? "";
    const record = isArtifactId(id) ? await context.agent.artifacts.get(id) : undefined;
    if (!record || !(await readableSessions(context)(record.sessionId))) throw artifactNotFound();
    const content = await context.agent.artifacts.content(id);
    if (!content) throw artifactNotFound("the artifact has no content");
    return new Response(content.body, {
      headers: {
        "content-type": content.contentType,
        // Never inline (docs/design/tools.md "Artifacts"): payloads are whatever host code or the model wrote.
        "content-disposition": `attachment; filename="${safeFilename(record.key, record.id)}"`,
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        "cache-control": "private, no-store",
      },
    });
  },
});

// --- internals ---

/** A cursor's text, `<updatedAt> <id>`, as a position in the list's order; undefined when it is not one. */
function positionOf(text: string): ArtifactPosition | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z) (art_[A-Za-z0-9]{1,64})$/.exec(text);
  if (!match || Number.isNaN(Date.parse(match[1]!)) || !isArtifactId(match[2]!)) return undefined;
  return { updatedAt: match[1]!, id: match[2]! };
}

const artifactNotFound = (message = "no such artifact"): HTTPError => notFound("artifact_not_found", message);

/**
 * Whether the caller may read a session, remembered for one request. Wide callers read every
 * session; others only their own, and a removed session is readable by nobody but them.
 */
function readableSessions(context: RouteContext): (sessionId: string) => Promise<boolean> {
  if (context.wide) return async () => true;
  const known = new Map<string, Promise<boolean>>();
  return (sessionId) => {
    let answer = known.get(sessionId);
    if (!answer) {
      answer = context.agent.sessions.readable(sessionId, viewer(context)).then(
        () => true,
        (error: unknown) => {
          if (HTTPError.isError(error) && (error.status === 403 || error.status === 404)) return false;
          throw error;
        },
      );
      known.set(sessionId, answer);
    }
    return answer;
  };
}
