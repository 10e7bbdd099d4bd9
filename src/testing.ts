/**
 * Test helpers for agent projects: the offline, deterministic `scripted` model
 * (docs/guide/getting-started.md "The scripted model").
 * @module agent-serve/testing
 */
export { createScriptedModel } from "./model/scripted.ts";
export type { ScriptedModelOptions } from "./model/scripted.ts";
export type { LanguageModelPort, ModelStepRequest, ModelStreamPart } from "./model/types.ts";
