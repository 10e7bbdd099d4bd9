/**
 * Exactly once per slot across processes: two real host processes on one sqlite state
 * root tick the same simulated hour in lockstep; the storage lease decides which fires each slot.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, test } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { SessionRecord } from "../src/base/definitions/sessions.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-schedules-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const repo = (path: string): string => pathToFileURL(fileURLToPath(new URL(`../${path}`, import.meta.url))).href;

/**
 * One host process: every-minute schedule on the sqlite store in `argv[2]`, clock injected. At wall time
 * `start + i * step` it sets its clock to 1 s past simulated minute i and ticks, so both
 * processes decide about the same slot at the same moment. Prints the slots it fired.
 */
const CHILD = `
import { createHost } from ${JSON.stringify(repo("src/host/host.ts"))};
import { createSqliteStorage } from ${JSON.stringify(repo("drivers/sqlite/index.ts"))};
const [root, startText, stepText, t0Text] = process.argv.slice(2);
const start = Number(startText), step = Number(stepText), t0 = Number(t0Text);
let now = t0;
const quiet = { info() {}, warn() {}, error() {} };
const project = {
  name: "hello", agent: {}, instructions: "test", diagnostics: [],
  schedules: { every: { cron: "* * * * *", markdown: "/reply tick" } },
};
const host = createHost({ agents: [{ slug: "hello", project, storage: createSqliteStorage({ path: root + "/state.db", sync: "normal" }) }], dev: true, logger: quiet, drainTimeoutMs: 30000, now: () => now });
await host.ready();
const fired = [];
for (let minute = 1; minute <= 60; minute++) {
  const wait = start + minute * step - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  now = t0 + minute * 60000 + 1000;
  for (const report of await host.tick()) for (const firing of report.schedules) fired.push(firing.slot);
}
await host.close();
process.stdout.write(JSON.stringify(fired));
`;

function runChild(script: string, args: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`child exited with ${code}: ${err}`));
      try {
        resolve(JSON.parse(out) as string[]);
      } catch {
        reject(new Error(`child printed no JSON: ${out} ${err}`));
      }
    });
  });
}

test("two host processes on one sqlite state root fire each slot of a simulated hour exactly once", async () => {
  const script = join(scratch, "child.ts");
  writeFileSync(script, CHILD);
  const root = join(scratch, "state");
  const t0 = Date.parse("2026-03-02T09:00:00.000Z");
  // Both start ticking 1.5 s from now (after their imports), then every second: wide enough that
  // on a loaded machine one process does not fall a whole simulated minute behind the other,
  // which would make its lagging tick see the slot as missed (more than 60 s old in simulated time).
  const args = [root, String(Date.now() + 1_500), "1000", String(t0)];
  const [a, b] = await Promise.all([runChild(script, args), runChild(script, args)]);

  const expected = Array.from({ length: 60 }, (_, i) => new Date(t0 + (i + 1) * 60_000).toISOString());
  expect([...a, ...b].sort()).toEqual(expected);
  // The lease was contended: with lockstep ticks neither process fired every slot (in practice
  // both win some); what matters is the union above having no duplicate and no gap.
  expect(a.length + b.length).toBe(60);

  const storage = createSqliteStorage({ path: join(root, "state.db") });
  try {
    const keys = (await storage.list("sessions/")).filter((key) => key.endsWith("/record"));
    const records = await Promise.all(keys.map(async (key) => JSON.parse((await storage.get(key))!) as SessionRecord));
    const tasks = records.filter((record) => record.channel === "schedule");
    expect(tasks).toHaveLength(60);
    // Each process drained its turns before exiting, so every task session ran to completion.
    expect(tasks.every((record) => record.mode === "task" && record.status === "completed")).toBe(true);
    expect(JSON.parse((await storage.get("schedules/every"))!)).toMatchObject({ lastSlot: t0 + 60 * 60_000 });
  } finally {
    await storage.close();
  }
}, 180_000);
