/**
 * The little of the Workers platform the adapter uses, typed here so the package needs neither
 * `@cloudflare/workers-types` nor `cloudflare:workers` (docs/design/cloudflare.md).
 * @module
 */
import type { DurableObjectSqlStorage } from "../../drivers/durable-object/index.ts";

/** `ctx` of a module worker's handlers. */
export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
}

/** `controller` of the `scheduled` handler. */
export interface ScheduledControllerLike {
  scheduledTime: number;
  cron: string;
}

export interface DurableObjectStubLike {
  fetch(request: Request): Promise<Response>;
}

export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): DurableObjectStubLike;
}

/** `ctx.storage` of a SQLite-backed Durable Object. */
export interface DurableObjectStorageLike extends DurableObjectSqlStorage {
  get<T = unknown>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number): Promise<void>;
}

/** `ctx` of a Durable Object. */
export interface DurableObjectStateLike extends ExecutionContextLike {
  storage: DurableObjectStorageLike;
}

/**
 * The worker's bindings: the two Durable Object namespaces and the string variables and secrets
 * it reads (docs/guide/cloudflare.md "Configuration").
 */
export interface CloudflareEnv {
  AGENT_SESSION: DurableObjectNamespaceLike;
  AGENT_COORDINATOR: DurableObjectNamespaceLike;
  [name: string]: unknown;
}

/** A Durable Object as the runtime calls it. */
export interface DurableObjectLike {
  fetch(request: Request): Promise<Response>;
  alarm(): Promise<void>;
}

/** A Durable Object class: what the worker module exports under the binding's class name. */
export type DurableObjectClass = new (ctx: DurableObjectStateLike, env: CloudflareEnv) => DurableObjectLike;
