/**
 * `agent-serve/memory`: the turn journal hook (`bot/hooks/memory.ts`).
 * @module
 */
export { memoryHook } from "../features/memory/hook.ts";
export type { MemoryBackend, MemoryHookOptions, MemoryRecord } from "../features/memory/hook.ts";
export type { ProjectFiles } from "../base/definitions/tools.ts";
