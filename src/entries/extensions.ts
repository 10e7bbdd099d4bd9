/**
 * `agent-serve/extensions`: packaged capabilities mounted under a namespace.
 * @module
 */
export { defineExtension } from "../features/extensions/define.ts";
export type { ExtensionContributions, ExtensionInfo, ExtensionMount, ExtensionSubagent } from "../base/definitions/extensions.ts";
