import type { AgentConfig } from "../../base/definitions/project.ts";

/**
 * Declares the agent configuration in `bot/agent.ts`. A typed identity function.
 * @example
 * export default defineAgent({ model: "scripted", concurrency: { maxRunningTurns: 4 } });
 */
export function defineAgent<const T extends AgentConfig>(config: T): T {
  return config;
}
