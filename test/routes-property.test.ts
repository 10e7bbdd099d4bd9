/**
 * Every route under generated input (docs/design/faults.md: "bad input never
 * yields a 500"): random methods, path parameters, query strings, headers and bodies against a
 * real loopback server. Properties: no 5xx; every 4xx is the `{ok:false, error, message?}`
 * envelope; a rejected request changes no stored state (no write reaches the storage driver).
 */
import fc from "fast-check";
import * as v from "valibot";
import { afterAll, beforeAll, expect, test } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import { agentRoutes } from "../src/http/routes/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { AgentHost } from "../src/host/types.ts";
import { postJson, project, quietLogger } from "./_harness.ts";

const WRITES = new Set(["commit", "set", "delete", "append", "deleteLog", "acquireLease", "releaseLease"]);
let writes = 0;

/** Counts every write that reaches the driver. */
function counting(inner: StorageDriver): StorageDriver {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function" || !WRITES.has(String(property))) return value;
      return (...args: unknown[]) => {
        writes++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

let host: AgentHost;
let server: NodeServer;
let url: string;
let sessionId = "";
let token = "";

beforeAll(async () => {
  const tools = {
    add: defineTool({ description: "Adds", inputSchema: v.object({ a: v.number(), b: v.number() }), execute: ({ a, b }) => ({ sum: a + b }) }),
    danger: defineTool({ description: "Gated", needsApproval: true, execute: () => "ran" }),
  };
  host = createHost({
    agents: [{ slug: "hello", project: project({ tools, schedules: { digest: { cron: "0 9 * * *", markdown: "/reply hi" } } }), storage: counting(createMemoryStorage()) }],
    logger: quietLogger,
    drainTimeoutMs: 50,
    dev: true,
    controlPlane: false,
  });
  server = await serveNode(host, { port: 0, silent: true });
  url = server.url.replace(/\/$/, "");
  const created = (await (await fetch(`${url}/hello/v1/session`, postJson({ message: "/reply hi" }))).json()) as { sessionId: string; continuationToken: string };
  sessionId = created.sessionId;
  token = created.continuationToken;
  await quiet();
});
afterAll(async () => {
  await host.close();
  await server.close(true);
});

/**
 * Waits until the turns accepted requests started have settled and no write has reached the
 * driver for a while (a turn's last writes, its lease release and marker, follow its end).
 */
async function quiet(): Promise<void> {
  let last = -1;
  while (last !== writes || host.runningTurns() > 0) {
    last = writes;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

const weirdSegment = fc.oneof(
  fc.constantFrom("..", ".", "%2e%2e", "%2F", "%00", "ses_", "ses_doesnotexist", "tool_x", "a".repeat(300), "%E0%A4%A", "constructor", "__proto__"),
  fc.stringMatching(/^[A-Za-z0-9_.~-]{0,40}$/),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);
const param = fc.oneof(fc.constant("<session>"), weirdSegment);
const jsonValue = fc.jsonValue({ maxDepth: 3 });
const body = fc.oneof(
  fc.constant(undefined),
  jsonValue.map((value) => JSON.stringify(value)),
  fc.record({ message: fc.oneof(fc.string({ maxLength: 40 }), jsonValue), continuationToken: fc.oneof(fc.constant("<token>"), fc.string({ maxLength: 30 })) }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
  fc.record({ input: jsonValue, sessionId: fc.oneof(fc.constant("<session>"), fc.string({ maxLength: 30 })), decision: fc.string({ maxLength: 10 }) }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 200 }),
  fc.constant("{".repeat(2000)),
  fc.constant(`{"message":"${"x".repeat(1024 * 1024 + 10)}"}`),
);
const method = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS");
const query = fc.oneof(
  fc.constant(""),
  fc.dictionary(fc.constantFrom("startIndex", "after", "kind", "sessionId", "limit", "waitSeconds", "x"), fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String)), { maxKeys: 3 }).map(
    (entries) => `?${new URLSearchParams(entries).toString()}`,
  ),
);
const headers = fc.record(
  {
    "content-type": fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", ""),
    "x-agent-serve-timed-work": fc.constant("1"),
    accept: fc.constantFrom("application/json, text/event-stream", "*/*", "text/html"),
    "mcp-session-id": fc.string({ maxLength: 10 }),
  },
  { requiredKeys: [] },
);
const routeIndex = fc.nat({ max: agentRoutes.length + 2 });

interface Probe {
  route: number;
  params: string[];
  method: string;
  query: string;
  headers: Record<string, string>;
  body: string | undefined;
  sameMethod: boolean;
}

const randomProbe: fc.Arbitrary<Probe> = fc.record({
  route: routeIndex,
  params: fc.array(param, { minLength: 3, maxLength: 3 }),
  method,
  query,
  headers,
  body,
  sameMethod: fc.boolean(),
});

/** Well-formed writes mixed in, so accepted requests change state between the rejected ones. */
const routeNamed = (path: string, verb: string): number => agentRoutes.findIndex((route) => route.path === path && route.method === verb);
const validProbe: fc.Arbitrary<Probe> = fc
  .constantFrom(
    { route: routeNamed("/v1/session", "POST"), body: JSON.stringify({ message: "/reply ok" }) },
    { route: routeNamed("/v1/session/:sessionId", "POST"), body: JSON.stringify({ message: "again", continuationToken: "<token>" }) },
    { route: routeNamed("/v1/tools/:toolName", "POST"), body: JSON.stringify({ input: { a: 1, b: 2 }, sessionId: "<session>" }), tool: "add" },
  )
  .map(({ route, body: text, tool }) => ({
    route,
    params: [tool ?? "<session>", "<session>", "<session>"],
    method: "POST",
    query: "",
    headers: { "content-type": "application/json" },
    body: text,
    sameMethod: true,
  }));
const probe = fc.oneof({ arbitrary: randomProbe, weight: 9 }, { arbitrary: validProbe, weight: 1 });

function pathOf(p: Probe): { path: string; method: string } {
  const route = agentRoutes[p.route];
  if (!route) return { path: p.route === agentRoutes.length ? "/v1/health" : `/hello/v1/${p.params[0] ?? ""}`, method: p.method };
  let i = 0;
  const path = route.path.replace(/:[A-Za-z]+/g, () => {
    const value = p.params[i++] ?? "";
    return value === "<session>" ? sessionId : value;
  });
  return { path: `/hello${path}`, method: p.sameMethod ? route.method : p.method };
}

test("no route answers 5xx, every 4xx is the envelope, and a rejected request writes nothing", async () => {
  const seen = { rejected: 0, acceptedWrites: 0, routes: new Set<string>() };
  await fc.assert(
    fc.asyncProperty(probe, async (p) => {
      const { path, method: verb } = pathOf(p);
      const withBody = verb !== "GET" && verb !== "HEAD" && p.body !== undefined;
      const text = withBody ? p.body!.replaceAll("<token>", token).replaceAll("<session>", sessionId) : undefined;
      const before = writes;
      const response = await fetch(`${url}${path}${p.query}`, {
        method: verb,
        headers: p.headers,
        ...(text === undefined ? {} : { body: text }),
        signal: AbortSignal.timeout(20_000),
      });
      const streaming = (response.headers.get("content-type") ?? "").includes("ndjson") || (response.headers.get("content-type") ?? "").includes("event-stream");
      const answer = streaming ? (await response.body?.cancel(), "") : await response.text();
      const where = `${verb} ${path}${p.query} -> ${response.status} ${answer.slice(0, 200)}`;
      if (response.status === 200 && path === `/hello/v1/session/${sessionId}` && verb === "POST") {
        token = (JSON.parse(answer) as { continuationToken: string }).continuationToken;
      }
      seen.routes.add(String(p.route));
      expect(response.status, where).toBeLessThan(500);
      if (response.status >= 400) {
        const mcp = verb === "POST" && /\/v1\/mcp(\/tools)?$/.test(path);
        if (mcp) {
          // The MCP endpoints speak JSON-RPC: their refusals are JSON-RPC error objects.
          expect((JSON.parse(answer) as { jsonrpc?: unknown; error?: { code?: unknown } }).error?.code, where).toEqual(expect.any(Number));
        } else if (verb !== "HEAD" && /\/v1\/a2a\//.test(path) && (JSON.parse(answer) as { error?: { details?: unknown } }).error?.details) {
          // The A2A HTTP+JSON binding answers the protocol's google.rpc.Status (docs/guide/a2a.md "HTTP+JSON").
          const status = (JSON.parse(answer) as { error: { code: unknown; status: unknown; details: Array<{ reason?: unknown }> } }).error;
          expect(status.code, where).toBe(response.status);
          expect(typeof status.status, where).toBe("string");
          expect(typeof status.details[0]?.reason, where).toBe("string");
        } else if (verb !== "HEAD") {
          const envelope = JSON.parse(answer) as { ok: unknown; error: unknown; message?: unknown };
          expect(envelope.ok, where).toBe(false);
          expect(typeof envelope.error, where).toBe("string");
          if (envelope.message !== undefined) expect(typeof envelope.message, where).toBe("string");
        }
        expect(writes - before, `${where}: a rejected request wrote to storage`).toBe(0);
        seen.rejected++;
      } else if (writes !== before) {
        seen.acceptedWrites++;
        // An accepted write may start a turn; let it finish before the next probe is judged.
        await quiet();
      }
    }),
    { numRuns: 400, seed: Number(process.env.FC_SEED ?? 1724), endOnFailure: true },
  );
  // The run reached every route, was refused often and also changed state: the checks had work.
  expect(seen.routes.size).toBeGreaterThanOrEqual(agentRoutes.length);
  expect(seen.rejected).toBeGreaterThan(100);
  expect(seen.acceptedWrites).toBeGreaterThan(0);
}, 120_000);
