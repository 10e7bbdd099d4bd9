/**
 * `agent-serve/memory`: the turn journal hook (`bot/hooks/memory.ts`).
 * @module
 */
export { memoryHook } from "./hook.ts";
export type { MemoryBackend, MemoryHookOptions, MemoryRecord, ProjectFiles } from "./hook.ts";
