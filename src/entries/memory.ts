/**
 * `agent-serve/memory`: the turn journal hook (`bot/hooks/memory.ts`).
 * @module
 */
export { memoryHook } from "../features/memory/hook.ts";
export type { MemoryBackend, MemoryHookOptions, MemoryRecord, ProjectFiles } from "../features/memory/hook.ts";
