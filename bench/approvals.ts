/**
 * How fast a parked turn takes up a decision now that parked calls live in storage
 * (docs/design/tools.md "Approvals"): from the `POST .../approvals/:callId` answer to the parked
 * turn's `action.approval_resolved` on its stream, and the whole request → decided → completed
 * cycle, for
 * - `same host, memory`: the resolving host runs the turn (the baseline: the old in-memory path
 *   also woke the turn in-process);
 * - `same host, sqlite`: the same on the durable default (the waiting turn is woken by the
 *   driver's follow of the decisions log);
 * - `two hosts, sqlite`: two hosts, each with its own connection to one sqlite file, as two
 *   processes on one state root are: the turn runs on one and the decision is made on the other,
 *   so the turn learns of it by re-reading its record (every 250 ms).
 *
 * Run: `npx node bench/approvals.ts [--calls=30] [--rounds=3]`.
 * @module
 */
import * as v from "valibot";
import { join } from "node:path";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { AgentHost } from "../src/host/types.ts";
import { alternate, fmt, machineLine, median, option, percentile, printTable, scriptedProject, tempDir } from "./_util.ts";

const CALLS = option("calls", 30);
const ROUNDS = option("rounds", 3);
type Subject = "same host, memory" | "same host, sqlite" | "two hosts, sqlite";
const SUBJECTS: Subject[] = ["same host, memory", "same host, sqlite", "two hosts, sqlite"];

const tools = {
  danger: defineTool({ description: "Needs a human", inputSchema: v.object({ n: v.number() }), needsApproval: true, execute: ({ n }) => `done ${n}` }),
};
const silent = { info() {}, warn() {}, error() {} };

function host(storage: StorageDriver): AgentHost {
  return createHost({ agents: [{ slug: "b", project: { ...scriptedProject(), tools }, storage }], logger: silent, drainTimeoutMs: 50 });
}

interface Result {
  /** Resolve answer → `action.approval_resolved`, ms. */
  takeUp: number[];
  /** Create → parked → resolved → `session.waiting`, ms. */
  cycle: number[];
}

async function measure(subject: Subject, dir: string, round: number): Promise<Result> {
  const path = join(dir, `${subject.replaceAll(/\W+/g, "-")}-${round}.db`);
  const drivers: StorageDriver[] =
    subject === "same host, memory" ? [createMemoryStorage()] : subject === "same host, sqlite" ? [createSqliteStorage({ path })] : [createSqliteStorage({ path }), createSqliteStorage({ path })];
  const runner = host(drivers[0]!);
  const resolver = drivers[1] ? host(drivers[1]) : runner;
  await runner.ready();
  await resolver.ready();
  const result: Result = { takeUp: [], cycle: [] };
  try {
    for (let n = 0; n < CALLS; n++) {
      const started = performance.now();
      const created = await runner.request("/b/v1/session", json({ message: `/tool danger {"n":${n}}` }));
      const { sessionId } = (await created.json()) as { sessionId: string };
      const stream = (await runner.request(`/b/v1/session/${sessionId}/stream`)).body!.pipeThrough(new TextDecoderStream()).getReader();
      const lines = lineReader(stream);
      let callId = "";
      while (!callId) {
        const event = await lines.next();
        if (event.type === "action.approval_requested") callId = event.data.callId as string;
      }
      const answered = await resolver.request(`/b/v1/session/${sessionId}/approvals/${callId}`, json({ decision: "approve" }));
      if (answered.status !== 200) throw new Error(`resolve answered ${answered.status}`);
      const decidedAt = performance.now();
      while ((await lines.next()).type !== "action.approval_resolved");
      result.takeUp.push(performance.now() - decidedAt);
      while ((await lines.next()).type !== "session.waiting");
      result.cycle.push(performance.now() - started);
      await stream.cancel();
    }
  } finally {
    await resolver.close();
    if (resolver !== runner) await runner.close();
  }
  return result;
}

const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

function lineReader(reader: ReadableStreamDefaultReader<string>): { next(): Promise<{ type: string; data: Record<string, unknown> }> } {
  let buffer = "";
  return {
    async next() {
      for (;;) {
        const newline = buffer.indexOf("\n");
        if (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim()) return JSON.parse(line) as { type: string; data: Record<string, unknown> };
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended early");
        buffer += value;
      }
    },
  };
}

async function main(): Promise<void> {
  console.log(`approvals bench: ${CALLS} parked calls per case, ${ROUNDS} rounds, cases alternate; ${machineLine()}`);
  const dir = await tempDir("approvals");
  try {
    const results = await alternate(SUBJECTS, ROUNDS, (subject, round) => measure(subject, dir.path, round), (subject, round, r) =>
      console.log(`round ${round + 1} ${subject}: take-up p50 ${fmt(median(r.takeUp))} ms, cycle p50 ${fmt(median(r.cycle))} ms`),
    );
    const base = percentile(results["same host, memory"].flatMap((r) => r.cycle).sort((x, y) => x - y), 50);
    const rows = SUBJECTS.map((subject) => {
      const takeUp = results[subject].flatMap((r) => r.takeUp).sort((a, b) => a - b);
      const cycle = results[subject].flatMap((r) => r.cycle).sort((a, b) => a - b);
      return [subject, fmt(percentile(takeUp, 50)), fmt(percentile(takeUp, 99)), fmt(percentile(cycle, 50)), fmt(percentile(cycle, 50) / base, 2)];
    });
    printTable(["case", "take-up p50 ms", "take-up p99 ms", "cycle p50 ms", "cycle vs memory"], rows);
  } finally {
    await dir.cleanup();
  }
}

// The hosts serve no socket here: keep the process alive while a turn polls its record.
const keepAlive = setInterval(() => {}, 1_000);
await main().finally(() => clearInterval(keepAlive));
