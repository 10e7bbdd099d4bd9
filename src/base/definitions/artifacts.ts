/**
 * Artifacts (docs/design/tools.md "Artifacts"): durable, capped, listable records of outputs,
 * optionally with a downloadable payload.
 * @module
 */
import type { ArtifactEventView } from "../events/vocabulary.ts";
import type { StandardSchema } from "../validate.ts";

export interface ArtifactKind {
  /** Also the model-facing prompt for this kind in `tag_artifact`. */
  description: string;
  /** Validates `data` before persisting; the parsed output is stored. */
  schema?: StandardSchema;
}

export interface ArtifactsDefinition {
  kinds?: Record<string, ArtifactKind>;
  /** Expose the model-facing `tag_artifact` tool (needs at least one kind). @default false */
  agentTool?: boolean;
  /** Retention cap; past it the oldest-updated artifact is evicted. @default 1000 */
  max?: number;
}

export interface TagInput {
  kind?: string;
  key: string;
  title: string;
  data?: unknown;
  contents?: string | Uint8Array;
  contentType?: string;
  /** Required when the facade is unbound (channels, schedules, reminders). */
  sessionId?: string;
}

/** The record events and lists carry (docs/design/tools.md "Artifacts": id, kind, key, title, data, source). */
export interface ArtifactRecord extends ArtifactEventView {
  sessionId: string;
  turnId?: string;
  contentType?: string;
  hasContent: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ArtifactsFacade {
  tag(input: TagInput): Promise<ArtifactRecord>;
  list(filter?: { kind?: string; sessionId?: string; limit?: number }): Promise<ArtifactRecord[]>;
}
