/**
 * Test helpers for agent projects: the offline, deterministic `scripted` model
 * (docs/guide/getting-started.md "The scripted model").
 * @module agent-serve/testing
 */
export { createScriptedModel } from "./engine/model/scripted.ts";
export type { ScriptedModelOptions } from "./engine/model/scripted.ts";
export type { LanguageModelPort, ModelStepRequest, ModelStreamPart } from "./base/ports/model.ts";
