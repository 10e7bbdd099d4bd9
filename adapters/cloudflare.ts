/**
 * Cloudflare Workers adapter (docs/guide/cloudflare.md): a module worker whose sessions each live
 * in a Durable Object, with a coordinator object for the shared database, timed work and
 * everything not about one session. Imports nothing runtime-specific (no `node:*`, no
 * `cloudflare:*`), so it bundles for workerd with or without `nodejs_compat`.
 * @example
 * import { createCloudflareWorker } from "agent-serve/cloudflare";
 * import { project } from "./project.ts"; // a ProjectDefinition built in code
 * const app = createCloudflareWorker({ mode: "single", projects: [{ slug: "bot", project }] });
 * export default app.worker;
 * export const AgentSession = app.AgentSession;
 * export const AgentCoordinator = app.AgentCoordinator;
 * @module
 */
export { createCloudflareWorker } from "./cloudflare/worker.ts";
export type { CloudflareApp, CloudflareWorker } from "./cloudflare/worker.ts";
export type { CloudflareProject, CloudflareWorkerOptions } from "./cloudflare/host-options.ts";
export { WORKERS_LIMITS } from "./cloudflare/host-options.ts";
export type {
  CloudflareEnv,
  DurableObjectClass,
  DurableObjectLike,
  DurableObjectStateLike,
  ExecutionContextLike,
  ScheduledControllerLike,
} from "./cloudflare/platform.ts";
export { createDurableObjectStorage } from "../drivers/durable-object/index.ts";
export type { DurableObjectSqlStorage, DurableObjectStorageOptions } from "../drivers/durable-object/index.ts";
