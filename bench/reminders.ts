/**
 * Reminders at scale, on the fs driver:
 *
 * 1. Start-up with 10,000 armed reminders against none, in the same run: the real CLI,
 *    `agent-serve serve <project> --port 0 --state-root <root> --mode single`, from spawn to the
 *    first successful `GET /v1/health` (the host loads every armed reminder into its due index
 *    before it listens), and the server's RSS once ready (VmRSS, peak VmHWM, from /proc).
 * 2. Fire delay for a batch due at once: a host in this process with the built-in clock, N
 *    reminders armed to come due at the same instant; for each, the time from that instant to its
 *    firing. Run form (the handler notes the time; no model turn) isolates the timer, lease and
 *    record write; prompt form adds the delivery (each starts a conversation with a scripted turn).
 *
 *   npx node bench/reminders.ts [--reminders=10000] [--rounds=3] [--batch=10000] [--prompt-batch=1000]
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/host/host.ts";
import type { ReminderRecord, RemindersFacade } from "../src/base/definitions/reminders.ts";
import type { SessionRecord } from "../src/base/definitions/sessions.ts";
import { alternate, fmt, machineLine, median, option, percentile, printTable, scriptedProject, tempDir } from "./_util.ts";
import { serveCli, stopCli } from "./_util.ts";

const count = option("reminders", 10_000);
const rounds = option("rounds", 3);
const batch = option("batch", 10_000);
const promptBatch = option("prompt-batch", 1_000);
const dir = await tempDir("reminders");

try {
  console.log(`reminders: ${machineLine()}`);
  await startup();
  await fireDelay("run", batch);
  await fireDelay("prompt", promptBatch);
} finally {
  await dir.cleanup();
}

// --- start-up ---

async function startup(): Promise<void> {
  console.log(`\nstart-up: ${count.toLocaleString("en-US")} armed reminders vs 0, ${rounds} rounds`);
  const project = join(dir.path, "project");
  await mkdir(join(project, "bot"), { recursive: true });
  await writeFile(join(project, "bot", "instructions.md"), "You are a benchmark agent.\n");
  await writeFile(join(project, "package.json"), `${JSON.stringify({ name: "bench-agent", private: true })}\n`);
  const empty = "0 reminders";
  const full = `${count} reminders`;
  const roots: Record<string, string> = { [empty]: join(dir.path, "empty"), [full]: join(dir.path, "full") };
  await mkdir(roots[empty]!, { recursive: true });
  const began = performance.now();
  await writeReminders(roots[full]!, count);
  spawnSync("sync");
  console.log(`  wrote ${count} reminder records in ${fmt((performance.now() - began) / 1000)} s`);

  await stopCli(await serveCli(project, roots[empty]!));
  const results = await alternate(
    [empty, full],
    rounds,
    async (subject) => {
      const started = await serveCli(project, roots[subject]!);
      await stopCli(started);
      return started;
    },
    (subject, round, r) => console.log(`  round ${round + 1} ${subject}: ready in ${fmt(r.readyMs)} ms, RSS ${fmt(r.rssMb)} MB (peak ${fmt(r.peakMb)} MB)`),
  );
  const base = results[empty]!;
  printTable(
    ["state root", "ready ms (median)", "per round ms", "RSS MB (median)", "peak RSS MB (median)", "ready Δ ms", "RSS Δ MB"],
    [empty, full].map((subject) => {
      const runs = results[subject]!;
      return [
        subject,
        fmt(median(runs.map((r) => r.readyMs))),
        runs.map((r) => fmt(r.readyMs)).join(" / "),
        fmt(median(runs.map((r) => r.rssMb))),
        fmt(median(runs.map((r) => r.peakMb))),
        fmt(median(runs.map((r) => r.readyMs)) - median(base.map((r) => r.readyMs))),
        fmt(median(runs.map((r) => r.rssMb)) - median(base.map((r) => r.rssMb))),
      ];
    }),
  );
}

/** Armed prompt-form reminders, each on its own conversation key, due in 30 days. */
async function writeReminders(root: string, n: number): Promise<void> {
  const storage = createSqliteStorage({ path: join(root, "state.db") });
  const now = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const record: ReminderRecord = {
        id: `rem_bench${String(i).padStart(12, "0")}`,
        purpose: `follow up on ticket ${i}`,
        channelId: "bench",
        continuationToken: `ticket:${i}`,
        form: "prompt",
        delay: "30d",
        prompt: `Check whether ticket ${i} was answered.`,
        nextFireAt: new Date(now + 30 * 86_400_000).toISOString(),
        fireCount: 0,
        status: "armed",
        createdAt: new Date(now).toISOString(),
      };
      await storage.set(`reminders/${record.id}`, JSON.stringify(record));
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await storage.close();
}

// --- fire delay ---

async function fireDelay(form: "run" | "prompt", n: number): Promise<void> {
  console.log(`\nfire delay: ${n.toLocaleString("en-US")} ${form}-form reminders due at the same instant (fs driver, fsync always, built-in clock)`);
  const root = join(dir.path, `fire-${form}`);
  const storage = createSqliteStorage({ path: join(root, "state.db") });
  const grabbed: { facade?: RemindersFacade } = {};
  const project = scriptedProject();
  project.tools = { grab: { description: "bench hook", execute: (_input, ctx) => void (grabbed.facade = ctx.host.reminders) } };
  const host = createHost({ agents: [{ slug: "bench", project, storage }], logger: { info() {}, warn() {}, error: (m) => console.error(m) }, drainTimeoutMs: 60_000 });
  try {
    await host.ready();
    await host.request("/bench/v1/tools/grab", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const reminders = grabbed.facade!;
    const firedAt: number[] = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    // Armed in a burst (32 creations in flight), all due at one instant after the last creation.
    const armStart = performance.now();
    const due = Date.now() + 3_000 + n;
    let next = 0;
    const arm = async (): Promise<void> => {
      while (next < n) {
        const i = next++;
        const input = { purpose: `r${i}`, channelId: "bench", continuationToken: `k${i}`, delay: `${due - Date.now()}ms` };
        if (form === "prompt") {
          await reminders.create({ ...input, prompt: "/reply ok" });
          continue;
        }
        await reminders.create({
          ...input,
          run: () => {
            firedAt.push(Date.now());
            if (firedAt.length === n) done();
            return { action: "skip" };
          },
        });
      }
    };
    await Promise.all(Array.from({ length: 32 }, arm));
    const armMs = performance.now() - armStart;
    if (Date.now() >= due) throw new Error("reminders: arming took longer than the lead time; raise it");
    // The clock's timer is unref'd (a host never keeps a process alive by itself); a server would.
    const keepAlive = setInterval(() => {}, 1_000);
    try {
      if (form === "run") await all;
      else firedAt.push(...(await sessionStarts(storage, n)));
    } finally {
      clearInterval(keepAlive);
    }
    const delays = firedAt.map((at) => at - due).sort((a, b) => a - b);
    printTable(
      ["form", "reminders", "arm ms (all)", "first fired ms", "p50 ms", "p90 ms", "p99 ms", "max ms (last fired)", "fired/s"],
      [[form, String(n), fmt(armMs), fmt(delays[0]!), fmt(percentile(delays, 50)), fmt(percentile(delays, 90)), fmt(percentile(delays, 99)), fmt(delays.at(-1)!), fmt((n / Math.max(1, delays.at(-1)!)) * 1000)]],
    );
  } finally {
    await host.close();
  }
}

/** When each reminder's conversation was started (its session record's createdAt), once all are. */
async function sessionStarts(storage: ReturnType<typeof createSqliteStorage>, n: number): Promise<number[]> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const keys = (await storage.list("sessions/")).filter((key) => key.endsWith("/record"));
    if (keys.length >= n) {
      const records = await Promise.all(keys.map(async (key) => JSON.parse((await storage.get(key))!) as SessionRecord));
      return records.map((record) => Date.parse(record.createdAt));
    }
    if (Date.now() > deadline) throw new Error(`reminders: only ${keys.length} of ${n} conversations started`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
