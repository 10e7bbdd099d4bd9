/**
 * Custom channels, two costs measured against baselines in the same run:
 *
 * 1. A channel route (`POST /v1/channels/<id>/echo`: auth chain, body read and kept raw,
 *    valibot validation, the handler context, a JSON answer) against `POST /v1/tools/echo` (the
 *    same schema through the direct tool call) and `GET /v1/health`, same client and concurrency.
 * 2. Chat turns per second when the events of every session are delivered to a channel, against
 *    the same host without a channel, on the memory driver and on the sqlite driver with
 *    `synchronous=FULL`: a `message.completed` handler (the usual reply channel: a cursor write per
 *    reply and one per batch), and a `*` handler (a durable cursor write per event).
 *
 *   npx node bench/channels.ts [--clients=16] [--turn-clients=8] [--seconds=4] [--rounds=3]
 * @module
 */
import { join } from "node:path";
import * as v from "valibot";
import { serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { POST, defineChannel } from "../src/entries/channels.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/engine/tools/define.ts";
import { type TurnsResult, alternate, fmt, machineLine, median, option, printTable, runClient, scriptedProject, tempDir } from "./_util.ts";

const clients = option("clients", 16);
const turnClients = option("turn-clients", 8);
const seconds = option("seconds", 4);
const rounds = option("rounds", 3);

const schema = v.object({ word: v.pipe(v.string(), v.maxLength(64)) });
const echo = defineTool({ description: "Echo a word", inputSchema: schema, execute: ({ word }) => ({ word }) });
const bench = defineChannel({ routes: [POST("/echo", { bodySchema: schema, handler: (_request, { body }) => ({ word: body.word }) })] });

console.log(`channels: ${machineLine()}`);
await routeOverhead();
await deliveryOverhead();

// --- internals ---

type Result = { requests: number; errors: number; firstError?: string; rps: number };

async function routeOverhead(): Promise<void> {
  const host = createHost({
    agents: [{ slug: "bench", project: { ...scriptedProject(), tools: { echo }, channels: { bench } }, storage: createMemoryStorage() }],
    logger: { info() {}, warn() {}, error() {} },
  });
  const server = await serveNode(host, { port: 0, silent: true });
  const subjects = ["GET /v1/health", "POST /v1/tools/echo", "POST /v1/channels/bench/echo"] as const;
  const targets: Record<(typeof subjects)[number], [string, unknown[] | null]> = {
    "GET /v1/health": [`${server.url}/bench/v1/health`, null],
    "POST /v1/tools/echo": [`${server.url}/bench/v1/tools/echo`, [{ input: { word: "hi" } }]],
    "POST /v1/channels/bench/echo": [`${server.url}/bench/v1/channels/bench/echo`, [{ word: "hi" }]],
  };
  const results = await alternate(subjects, rounds, (subject) => {
    const [url, bodies] = targets[subject];
    return runClient<Result>(["calls", url, clients, seconds, 1, JSON.stringify(bodies)]);
  });
  const base = results["GET /v1/health"];
  console.log(`\nroute overhead: ${clients} clients, ${seconds} s per round, ${rounds} rounds`);
  printTable(
    ["subject", "req/s (median)", "per round", "errors", "ratio to health"],
    subjects.map((subject) => [
      subject,
      fmt(median(results[subject].map((r) => r.rps))),
      results[subject].map((r) => fmt(r.rps)).join(" / "),
      String(results[subject].reduce((sum, r) => sum + r.errors, 0)),
      fmt(median(results[subject].map((r, round) => r.rps / base[round]!.rps))),
    ]),
  );
  await host.close();
  await server.close(true);
}

async function deliveryOverhead(): Promise<void> {
  const rows: string[][] = [];
  for (const driver of ["memory", "sqlite (synchronous FULL)"] as const) {
    const subjects = ["no channel", "message.completed handler", "* handler"] as const;
    const delivered: Record<string, number> = {};
    const results = await alternate(subjects, rounds, (subject) =>
      measureTurns(driver, subject === "no channel" ? undefined : subject === "* handler" ? "*" : "message.completed", () => {
        delivered[subject] = (delivered[subject] ?? 0) + 1;
      }),
    );
    const base = results["no channel"];
    for (const subject of subjects) {
      const runs = results[subject];
      const failed = runs.reduce((sum, r) => sum + r.errors, 0);
      if (failed > 0) throw new Error(`channels: ${failed} failed turns (${subject}, ${driver}): ${runs.find((r) => r.firstError)?.firstError}`);
      rows.push([
        driver,
        subject,
        fmt(median(runs.map((r) => r.turnsPerSecond))),
        runs.map((r) => fmt(r.turnsPerSecond)).join(" / "),
        fmt(median(runs.map((r, round) => r.turnsPerSecond / base[round]!.turnsPerSecond))),
        subject === "no channel" ? "" : String(delivered[subject] ?? 0),
      ]);
    }
  }
  console.log(`\ndelivery overhead: ${turnClients} concurrent chat clients, ${seconds} s per round, ${rounds} rounds`);
  printTable(["driver", "host", "turns/s (median)", "per round", "ratio to no channel", "events delivered"], rows);
}

/** Sessions of the built-in HTTP channel; `bot/channels/http.ts` with an events map delivers all their events. */
async function measureTurns(driver: "memory" | "sqlite (synchronous FULL)", eventType: string | undefined, onDelivered: () => void): Promise<TurnsResult> {
  const dir = driver === "memory" ? undefined : await tempDir("channels");
  const storage: StorageDriver = dir ? createSqliteStorage({ path: join(dir.path, "state.db") }) : createMemoryStorage();
  const http = defineChannel({ events: { [eventType ?? "*"]: () => onDelivered() } });
  const project = eventType ? { ...scriptedProject(), channels: { http } } : scriptedProject();
  const host = createHost({ agents: [{ slug: "bench", project, storage }], logger: { info() {}, warn() {}, error() {} } });
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  try {
    return await runClient<TurnsResult>(["turns", `${server.url}/bench`, turnClients, seconds]);
  } finally {
    await server.close(true);
    await host.close();
    await dir?.cleanup();
  }
}
