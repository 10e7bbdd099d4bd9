/**
 * `agent-serve/hooks`: side effects after each recorded event.
 * @module
 */
export { defineHook } from "./define.ts";
export type { HookContext, HookDefinition, HookHandler } from "./types.ts";
