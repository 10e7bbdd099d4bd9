/**
 * `describeHost`: every suite runs twice, in-process (`host.fetch` with plain Requests) and over
 * a real loopback server through the Node adapter, so both paths stay equivalent.
 */
import { afterEach, beforeEach, describe, expect } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { EventEnvelope } from "../src/entries/events.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import type { HostLogger } from "../src/base/logging.ts";

export interface HostUnderTest {
  kind: "in-process" | "http";
  host: AgentHost;
  /** Fetches `path` (absolute path on the host) as a direct loopback peer unless `ip` says otherwise. */
  fetch(path: string, init?: RequestInit & { ip?: string }): Promise<Response>;
}

export const quietLogger: HostLogger = { info() {}, warn() {}, error() {} };

export function project(overrides: Partial<ProjectDefinition> = {}): ProjectDefinition {
  return { name: "Hello", agent: {}, instructions: "You are a test agent.", diagnostics: [], ...overrides };
}

/** Options for one agent mounted as `hello` on memory storage. */
export function helloOptions(overrides: Partial<AgentHostOptions> = {}): AgentHostOptions {
  return {
    agents: [{ slug: "hello", project: project(), storage: createMemoryStorage() }],
    logger: quietLogger,
    drainTimeoutMs: 50,
    ...overrides,
  };
}

export function describeHost(title: string, options: () => AgentHostOptions, body: (get: () => HostUnderTest) => void): void {
  for (const kind of ["in-process", "http"] as const) {
    describe(`${title} [${kind}]`, () => {
      let current: HostUnderTest | undefined;
      let server: NodeServer | undefined;
      beforeEach(async () => {
        const host = createHost(options());
        if (kind === "in-process") {
          current = {
            kind,
            host,
            fetch: (path, { ip, ...init } = {}) => host.request(path, init, { ip: ip ?? "127.0.0.1" }),
          };
        } else {
          const started = await serveNode(host, { port: 0, silent: true });
          server = started;
          current = {
            kind,
            host,
            fetch: (path, { ip: _ip, ...init } = {}) => fetch(`${started.url}${path}`, init),
          };
        }
      });
      afterEach(async () => {
        await current?.host.close();
        await server?.close(true);
        current = undefined;
        server = undefined;
      });
      body(() => {
        if (!current) throw new Error("host not started");
        return current;
      });
    });
  }
}

export const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/** A live stream's events up to the first for which `until` holds; fails on another status, or when the stream ends first. */
export async function readEventsUntil(response: Response, until: (event: TestEvent) => boolean, timeoutMs = 5000): Promise<TestEvent[]> {
  if (response.status !== 200) throw new Error(`the stream answered ${response.status}: ${await response.text()}`);
  const events = await readEvents(response, until, timeoutMs);
  const last = events.at(-1);
  if (!last || !until(last)) throw new Error(`stream ended after ${events.map((e) => e.type).join(",")}`);
  return events;
}

/** Reads NDJSON lines from a streaming response until `until` matches or the timeout passes. */
export async function readEvents(
  response: Response,
  until: (event: TestEvent, all: TestEvent[]) => boolean,
  timeoutMs = 5000,
): Promise<TestEvent[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: TestEvent[] = [];
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out after ${events.length} events: ${events.map((e) => e.type).join(",")}`);
      const chunk = await withTimeout(reader.read(), remaining);
      if (chunk.done) return events;
      buffer += decoder.decode(chunk.value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (!line) continue;
        const event = JSON.parse(line) as TestEvent;
        events.push(event);
        if (until(event, events)) return events;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** An event as a client reads it (the envelope; the payload is checked by each test). */
export type TestEvent = EventEnvelope;

export async function allEvents(target: HostUnderTest, base: string, sessionId: string): Promise<TestEvent[]> {
  const response = await target.fetch(`${base}/v1/session/${sessionId}/events`);
  const text = await response.text();
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
}

/** Every stored event of a session, from a server at `base` (the agent's URL). */
export async function fetchEvents(base: string, sessionId: string): Promise<TestEvent[]> {
  const response = await fetch(`${base}/v1/session/${sessionId}/events`);
  expect(response.status).toBe(200);
  return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
}

/** Polls a session's stored events until `done` holds for them; resolves with them. */
export function eventsWhen(target: HostUnderTest, base: string, sessionId: string, done: (events: TestEvent[]) => boolean, timeoutMs = 5000): Promise<TestEvent[]> {
  return eventually(async () => {
    const events = await allEvents(target, base, sessionId);
    return done(events) ? events : undefined;
  }, timeoutMs, "events");
}

/** Indexes from 0 with no gap: what every stored log must show. */
export function expectContiguous(events: readonly TestEvent[]): void {
  expect(events.map((event) => event.index)).toEqual(events.map((_, i) => i));
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A view of a driver that can be cut off, as a crashed process is: nothing it does lands afterwards. */
export function severable(inner: StorageDriver): { driver: StorageDriver; sever(): void } {
  let severed = false;
  const driver = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      // A dead process's followers hear nothing more, whoever keeps writing.
      if (property === "follow") {
        return (log: string, listener: (first: number, lines: readonly string[]) => void) =>
          target.follow(log, (first, lines) => {
            if (!severed) listener(first, lines);
          });
      }
      return (...args: unknown[]) => {
        if (severed && property === "close") return Promise.resolve();
        if (severed) return property === "read" ? (async function* () {})() : Promise.reject(new Error("process is gone"));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { driver, sever: () => (severed = true) };
}
