/**
 * `agent-serve/hooks`: side effects after each recorded event.
 * @module
 */
export { defineHook } from "../engine/hooks/define.ts";
export type { HookContext, HookDefinition, HookHandler } from "../base/definitions/hooks.ts";
