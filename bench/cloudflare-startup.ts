/**
 * The start-up CPU of the Cloudflare build of examples/hello: what Workers limit to 1 s (parse and
 * execute the worker's global scope). Subjects, alternating round by round:
 *
 * - one-line worker: `export default { fetch: () => new Response("ok") }`, the fixed cost;
 * - built worker: what `agent-serve build --target cloudflare` writes (one `worker.mjs`);
 * - split into chunks: the same entry bundled by esbuild with `splitting: true`, the chunks
 *   uploaded beside it (the layout the build does not use; kept here to show why);
 * - earlier build (with `--compare=<build folder>`): the `worker.mjs` of another build, e.g. of an
 *   earlier commit, for before/after figures in the same run.
 *
 * Measures, each in a fresh process per round:
 *
 * - V8 CPU (bench/_module-startup.ts): `process.cpuUsage()` around compiling every uploaded
 *   module, linking, and evaluating the top level, through `vm.SourceTextModule` in Node (the V8
 *   module API workerd uses). workerd compiles every uploaded module at load, imported or not.
 * - workerd CPU to ready: utime + stime of the workerd process Miniflare starts (Linux
 *   `/proc/<pid>/stat`, 10 ms ticks) when `ready` resolves: workerd's own start-up, the compile and
 *   the top-level evaluation. Miniflare gets the modules as an explicit list, as wrangler uploads
 *   them.
 * - workerd ready: wall time from `new Miniflare` to `ready`, Miniflare's Node side included.
 *
 *   npx node bench/cloudflare-startup.ts [--rounds=7] [--compare=<build folder>]
 * @module
 */
import { spawn } from "node:child_process";
import { globSync, readFileSync, readdirSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import type { MiniflareOptions } from "miniflare";
import { buildCloudflare } from "../cli/build.ts";
import { workerBuildOptions } from "../cli/cloudflare/bundle.ts";
import { miniflareOptions } from "../test/_cloudflare.ts";
import { alternate, fmt, machineLine, median, option, printTable, tempDir } from "./_util.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const PROJECT = join(REPO, "examples", "hello");
const CHILD = fileURLToPath(new URL("./_module-startup.ts", import.meta.url));
const rounds = option("rounds", 7);
const compare = process.argv.find((arg) => arg.startsWith("--compare="))?.slice("--compare=".length);
const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: process.env, cwd: REPO };

interface Subject {
  /** Every module uploaded, the entry first. */
  modules: string[];
  miniflare: MiniflareOptions;
  /** A path answered 200 once ready, so a worker that loads but cannot serve fails the run. */
  probe: string;
}

interface V8Startup {
  compileStartupMs: number;
  compileOtherMs: number;
  linkMs: number;
  evaluateMs: number;
  startupBytes: number;
  otherBytes: number;
}

console.log(`cloudflare start-up: ${rounds} rounds; ${machineLine()}`);
const dir = await tempDir("cfstartup");
try {
  const out = join(dir.path, "built");
  await buildCloudflare({ target: "cloudflare", dir: PROJECT, out }, io);
  const built = miniflareOptions(out, join(dir.path, "state"));
  const workerOptions = (modules: string[], root: string): MiniflareOptions => ({
    ...built,
    modules: modules.map((path) => ({ type: "ESModule" as const, path })),
    modulesRoot: root,
    bindings: { AGENT_SERVE_ALLOW_ANONYMOUS: "1" },
  });

  const split = join(dir.path, "split");
  await build({
    ...workerBuildOptions(join(out, "entry.mjs")),
    splitting: true,
    outdir: split,
    entryNames: "worker",
    chunkNames: "chunks/[name]-[hash]",
    outExtension: { ".js": ".mjs" },
  });
  const splitModules = [join(split, "worker.mjs"), ...globSync("chunks/*.mjs", { cwd: split }).sort().map((path) => join(split, path))];

  const tiny = join(dir.path, "tiny", "worker.mjs");
  await mkdir(join(dir.path, "tiny"));
  await writeFile(tiny, `export default { fetch: () => new Response("ok") };\n`);

  const subjects: Record<string, Subject> = {
    "one-line worker": { modules: [tiny], miniflare: { modules: [{ type: "ESModule", path: tiny }], modulesRoot: join(dir.path, "tiny"), compatibilityDate: built.compatibilityDate }, probe: "/" },
    "built worker": { modules: [join(out, "worker.mjs")], miniflare: workerOptions([join(out, "worker.mjs")], out), probe: "/hello/v1/health" },
    "split into chunks": { modules: splitModules, miniflare: workerOptions(splitModules, split), probe: "/hello/v1/health" },
  };
  if (compare) {
    const earlier = resolve(compare);
    subjects["earlier build"] = { modules: [join(earlier, "worker.mjs")], miniflare: workerOptions([join(earlier, "worker.mjs")], earlier), probe: "/hello/v1/health" };
  }
  const names = Object.keys(subjects);

  let state = 0;
  const results = await alternate(
    names,
    rounds,
    async (name) => {
      const subject = subjects[name]!;
      const v8 = await measureV8(subject.modules);
      const begin = performance.now();
      const worker = new Miniflare({ ...subject.miniflare, ...(name === "one-line worker" ? {} : { durableObjectsPersist: join(dir.path, `state-${state++}`) }) });
      await worker.ready;
      const ready = performance.now() - begin;
      const workerdCpu = workerdCpuMs();
      const response = await worker.dispatchFetch(`http://localhost${subject.probe}`);
      if (!response.ok) throw new Error(`${name}: ${subject.probe} answered ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      await worker.dispose();
      return { v8, ready, workerdCpu };
    },
    (name, round, { v8, ready, workerdCpu }) =>
      console.log(
        `round ${round + 1} ${name}: V8 compile ${fmt(v8.compileStartupMs + v8.compileOtherMs)} ms, evaluate ${fmt(v8.evaluateMs)} ms; workerd CPU ${fmt(workerdCpu)} ms, ready ${fmt(ready)} ms`,
      ),
  );

  const med = (name: string, pick: (result: (typeof results)[string][number]) => number): number => median(results[name]!.map(pick));
  const total = (v8: V8Startup): number => v8.compileStartupMs + v8.compileOtherMs + v8.linkMs + v8.evaluateMs;
  const base = "built worker";
  console.log("");
  printTable(
    ["subject", "uploaded (KB)", "static graph (KB)", "V8 compile (ms)", "V8 evaluate (ms)", "V8 total (ms)", `vs ${base}`, "workerd CPU to ready (ms)", "workerd ready (ms)"],
    names.map((name) => {
      const first = results[name]![0]!.v8;
      return [
        name,
        fmt((first.startupBytes + first.otherBytes) / 1024),
        fmt(first.startupBytes / 1024),
        fmt(med(name, ({ v8 }) => v8.compileStartupMs + v8.compileOtherMs)),
        fmt(med(name, ({ v8 }) => v8.evaluateMs)),
        fmt(med(name, ({ v8 }) => total(v8))),
        `${fmt(med(name, ({ v8 }) => total(v8)) / med(base, ({ v8 }) => total(v8)))}×`,
        fmt(med(name, ({ workerdCpu }) => workerdCpu)),
        fmt(med(name, ({ ready }) => ready)),
      ];
    }),
  );
  console.log("\nmedians. static graph: the modules the entry imports statically (evaluated at start-up). V8: Node's V8 through");
  console.log("vm.SourceTextModule, compile of every uploaded module + link + top-level evaluation. workerd CPU: 10 ms ticks.");
} finally {
  await dir.cleanup();
}

// --- internals ---

function measureV8(modules: string[]): Promise<V8Startup> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--experimental-vm-modules", "--no-warnings", CHILD, ...modules], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolvePromise(JSON.parse(stdout) as V8Startup) : reject(new Error(`_module-startup.ts exited with ${code}: ${stderr.trim()}`))));
  });
}

/** CPU time of the workerd processes this process started (Miniflare's), from /proc; NaN without /proc. */
function workerdCpuMs(): number {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return Number.NaN;
  }
  let ticks = 0;
  for (const pid of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const close = stat.lastIndexOf(")");
    const name = stat.slice(stat.indexOf("(") + 1, close);
    // Fields after the name: state ppid ... utime (14th of the line) stime (15th).
    const fields = stat.slice(close + 2).split(" ");
    if (name === "workerd" && Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}
