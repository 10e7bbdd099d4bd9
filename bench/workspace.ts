/**
 * Per-turn overhead of session workspace preparation on the local runtime, for a project with
 * 20 skills (8 single-file, 6 folder-form with 2 sibling files each, 6 defineSkill modules),
 * 3 agent tools and 50 seed files (1-4 KiB, in 5 folders).
 *
 *   npx node bench/workspace.ts [--sessions=40] [--rounds=5]
 *
 * Two views, each over `sessions` sessions per round, subjects alternated round by round:
 * - the preparation alone (`sessionWorkspace` + `prepareWorkspace`), for a session's first turn
 *   (a fresh workspace: everything written, seeds copied) and for a later turn (unchanged plan);
 * - whole in-process turns (`POST /v1/session`, or a follow-up, with `/reply ok` on the scripted
 *   model, read from the stream until `session.waiting`) without a runtime (baseline), with the
 *   local runtime on a first turn, and on a later turn.
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadProject } from "../loader/load-project.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { planWorkspace } from "../src/engine/harness/workspace-plan.ts";
import { createHost } from "../src/index.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import type { RuntimePort } from "../src/base/ports/runtime.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { alternate, fmt, machineLine, median, option, percentile, printTable, tempDir } from "./_util.ts";

const sessions = option("sessions", 40);
const rounds = option("rounds", 5);

console.log(`workspace: ${sessions} sessions per round, ${rounds} rounds; ${machineLine()}`);
const projectDir = await tempDir("workspace-project");
writeBenchProject(projectDir.path);
const project = await loadProject(projectDir.path);
if (project.diagnostics.length > 0) throw new Error(`workspace: the bench project has diagnostics: ${JSON.stringify(project.diagnostics)}`);
const plan = planWorkspace(project).plan;
console.log(
  `  project: ${Object.keys(project.skills ?? {}).length} skills, ${Object.keys(project.tools ?? {}).length} agent tools, ${project.workspaceSeed?.files ?? 0} seed files; ` +
    `plan: ${Object.keys(plan.files).length} generated files, ${plan.copies.length} copied skill folders`,
);

// --- the preparation alone ---

const prepSubjects = ["prepare: first turn", "prepare: later turn"] as const;
const prep = await alternate(["first", "later"] as const, rounds, async (kind) => measurePrepare(kind), (kind, round, r) =>
  console.log(`  round ${round + 1}, prepare ${kind}: p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms`),
);

// --- whole turns ---

const turnSubjects = ["no runtime (baseline)", "local runtime: first turn", "local runtime: later turn"] as const;
const turns = await alternate(turnSubjects, rounds, (subject) => measureTurns(subject), (subject, round, r) =>
  console.log(`  round ${round + 1}, ${subject}: p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms`),
);

console.log("");
const baseline = median(turns["no runtime (baseline)"].map((r) => r.p50));
printTable(
  ["what", "p50 ms", "p95 ms", "vs baseline turn (p50)"],
  [
    ...prepSubjects.map((label, i) => {
      const runs = prep[i === 0 ? "first" : "later"];
      return [label, fmt(median(runs.map((r) => r.p50))), fmt(median(runs.map((r) => r.p95))), `+${fmt((median(runs.map((r) => r.p50)) / baseline) * 100)}%`];
    }),
    ...turnSubjects.map((subject) => {
      const runs = turns[subject];
      const p50 = median(runs.map((r) => r.p50));
      return [`turn, ${subject}`, fmt(p50), fmt(median(runs.map((r) => r.p95))), subject === "no runtime (baseline)" ? "1.00x" : `${fmt(p50 / baseline)}x`];
    }),
  ],
);
await projectDir.cleanup();

// --- internals ---

interface Stats {
  p50: number;
  p95: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

async function measurePrepare(kind: "first" | "later"): Promise<Stats> {
  const state = await tempDir("workspace-state");
  const runtime = createLocalRuntime({ stateRoot: state.path });
  const ids = Array.from({ length: sessions }, (_, i) => `ses_bench${i}`);
  const prepare = async (id: string): Promise<number> => {
    const started = performance.now();
    const dir = await runtime.sessionWorkspace(id);
    await runtime.prepareWorkspace!(dir, plan);
    return performance.now() - started;
  };
  try {
    if (kind === "later") for (const id of ids) await prepare(id);
    const samples: number[] = [];
    for (const id of ids) samples.push(await prepare(id));
    return stats(samples);
  } finally {
    await state.cleanup();
  }
}

async function measureTurns(subject: (typeof turnSubjects)[number]): Promise<Stats> {
  const state = await tempDir("workspace-turns");
  const runtime: RuntimePort | undefined = subject === "no runtime (baseline)" ? undefined : createLocalRuntime({ stateRoot: state.path });
  const mounted: ProjectDefinition = { ...project, agent: { ...project.agent } };
  const host = createHost({
    agents: [{ slug: "bench", project: mounted, storage: createMemoryStorage(), ...(runtime ? { runtime } : {}) }],
    logger: { info() {}, warn() {}, error() {} },
  });
  const request = (path: string, init?: RequestInit) => host.request(`/bench${path}`, init, { ip: "127.0.0.1" });
  const post = (path: string, body: unknown) => request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  try {
    const open: Array<{ sessionId: string; continuationToken: string }> = [];
    if (subject === "local runtime: later turn") {
      for (let i = 0; i < sessions; i++) {
        const created = (await (await post("/v1/session", { message: "/reply ok" })).json()) as { sessionId: string; continuationToken: string };
        await waitIdle(request, created.sessionId, 1);
        open.push(created);
      }
    }
    const samples: number[] = [];
    for (let i = 0; i < sessions; i++) {
      const started = performance.now();
      if (subject === "local runtime: later turn") {
        const session = open[i]!;
        const answer = (await (await post(`/v1/session/${session.sessionId}`, { continuationToken: session.continuationToken, message: "/reply ok" })).json()) as { ok: boolean };
        if (!answer.ok) throw new Error("workspace: follow-up refused");
        await waitIdle(request, session.sessionId, 2);
      } else {
        const created = (await (await post("/v1/session", { message: "/reply ok" })).json()) as { sessionId: string };
        await waitIdle(request, created.sessionId, 1);
      }
      samples.push(performance.now() - started);
    }
    return stats(samples);
  } finally {
    await host.close();
    await state.cleanup();
  }
}

/** Reads the session's live stream until its `count`-th `session.waiting`. */
async function waitIdle(request: (path: string) => Promise<Response>, sessionId: string, count: number): Promise<void> {
  const response = await request(`/v1/session/${sessionId}/stream`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let seen = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error("workspace: the stream ended before session.waiting");
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line.startsWith('{"type":"turn.failed"')) throw new Error(`workspace: a turn failed: ${line}`);
        if (line.startsWith('{"type":"session.waiting"') && ++seen === count) return;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function writeBenchProject(dir: string): void {
  const write = (path: string, text: string): void => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write("package.json", JSON.stringify({ name: "workspace-bench", type: "module" }));
  write("bot/agent.ts", `export default { model: "scripted" };\n`);
  write("bot/instructions.md", "You are a benchmark agent. Keep answers short.\n".repeat(20));
  const body = (n: number): string => `# Skill ${n}\n\n${"Step: do the thing carefully and check the result.\n".repeat(30)}`;
  for (let i = 0; i < 8; i++) write(`bot/skills/single-${i}.md`, `---\ndescription: Single-file skill ${i}\n---\n${body(i)}`);
  for (let i = 0; i < 6; i++) {
    write(`bot/skills/folder-${i}/SKILL.md`, `---\ndescription: Folder skill ${i}\n---\n${body(i)}`);
    write(`bot/skills/folder-${i}/references/api.md`, body(i));
    write(`bot/skills/folder-${i}/references/examples.md`, body(i));
  }
  for (let i = 0; i < 6; i++) {
    write(`bot/skills/module-${i}.ts`, `export default { description: "Module skill ${i}", markdown: ${JSON.stringify(body(i))}, files: { "references/notes.md": ${JSON.stringify(body(i))} } };\n`);
  }
  for (let i = 0; i < 3; i++) {
    write(`bot/tools/agent-${i}.ts`, `export default { description: "Agent tool ${i}", execution: "agent", script: "cat" };\n`);
  }
  for (let i = 0; i < 50; i++) write(`bot/sandbox/workspace/dir-${i % 5}/seed-${i}.txt`, "x".repeat(1024 * (1 + (i % 4))));
}
