/**
 * `agent-serve/artifacts`: durable, capped, listable records of outputs, optionally with a
 * downloadable payload.
 * @module
 */
export { defineArtifacts } from "../features/artifacts/define.ts";
export type { ArtifactKind, ArtifactRecord, ArtifactsDefinition, ArtifactsFacade, TagInput } from "../base/definitions/artifacts.ts";
