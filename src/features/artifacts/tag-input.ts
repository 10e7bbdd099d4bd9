/**
 * Checks and normalizes a tag request before anything is stored (docs/design/tools.md "Artifacts"):
 * the shape of the input, the declared kinds, and the kind's schema over `data` (whose parsed
 * output is kept).
 * @module
 */
import * as v from "valibot";
import { validate } from "../../base/validate.ts";
import { badRequest, errorMessage } from "../../base/errors.ts";
import type { ArtifactsDefinition, TagInput } from "../../base/definitions/artifacts.ts";

/** The kind of an artifact tagged without one. */
export const DEFAULT_KIND = "artifact";

/** A tag request after validation: `data` is JSON (what storage and events carry). */
export interface NormalizedTag {
  kind: string;
  key: string;
  title: string;
  data: unknown;
  contents?: string | Uint8Array;
  contentType?: string;
}

// A media type without control characters, so it can go into a response header as is.
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;[\x20-\x7e]*)?$/;

export const tagInputSchema = v.object({
  kind: v.optional(v.pipe(v.string(), v.minLength(1, "kind must not be empty"), v.maxLength(128))),
  key: v.pipe(v.string(), v.minLength(1, "key must not be empty"), v.maxLength(512)),
  title: v.pipe(v.string(), v.maxLength(1000)),
  data: v.optional(v.unknown()),
  contents: v.optional(v.union([v.string(), v.instance(Uint8Array)], "contents must be a string or bytes")),
  contentType: v.optional(v.pipe(v.string(), v.maxLength(255), v.regex(MEDIA_TYPE, "contentType must be a media type"))),
  sessionId: v.optional(v.string()),
});

/** Throws `HTTPError` 400 `invalid_request` for anything the declaration does not accept. */
export async function normalizeTag(input: TagInput, definition: ArtifactsDefinition | undefined): Promise<NormalizedTag> {
  const parsed = await validate(input, tagInputSchema, "artifact");
  const kind = parsed.kind ?? DEFAULT_KIND;
  const kinds = definition?.kinds;
  let data: unknown = parsed.data;
  if (kinds && Object.keys(kinds).length > 0) {
    const declared = Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
    if (!declared) {
      throw badRequest(`unknown artifact kind ${JSON.stringify(kind)}; declared kinds: ${Object.keys(kinds).join(", ")}`, {
        kinds: Object.keys(kinds),
      });
    }
    if (declared.schema) data = await validate(data, declared.schema, `data of artifact kind ${kind}`);
  }
  return {
    kind,
    key: parsed.key,
    title: parsed.title,
    data: toJson(data),
    ...(parsed.contents === undefined ? {} : { contents: parsed.contents }),
    ...(parsed.contentType === undefined ? {} : { contentType: parsed.contentType }),
  };
}

// --- internals ---

/** What storage and the event stream will see, so the in-memory record never differs from them. */
function toJson(data: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch (error) {
    throw badRequest(`artifact data is not JSON-serializable: ${errorMessage(error)}`);
  }
  return text === undefined ? null : (JSON.parse(text) as unknown);
}
