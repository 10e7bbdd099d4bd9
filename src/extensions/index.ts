/**
 * `agent-serve/extensions`: packaged capabilities mounted under a namespace.
 * @module
 */
export { defineExtension } from "./define.ts";
export type { ExtensionContributions, ExtensionInfo, ExtensionMount, ExtensionSubagent } from "./types.ts";
