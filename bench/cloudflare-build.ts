/**
 * `agent-serve build --target cloudflare` on examples/hello: how long the build takes against
 * loading the same project (`validate`'s work, modules already cached: the build's extra cost is
 * rendering the docs, writing the entry and bundling), the bundle's size as Workers count it (gzip),
 * and workerd's start-up on the built worker (Miniflare `ready`, where the bundle is evaluated, then
 * the first `/v1/health` on fresh storage, which starts the coordinator object) against a
 * one-line worker in the same workerd.
 *
 *   npx node bench/cloudflare-build.ts [--rounds=5]
 * @module
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { buildCloudflare } from "../cli/build.ts";
import { discoverProjects } from "../loader/discover.ts";
import { miniflareOptions } from "../test/_cloudflare.ts";
import { alternate, fmt, machineLine, median, option, printTable, tempDir } from "./_util.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const PROJECT = join(REPO, "examples", "hello");
const rounds = option("rounds", 5);
const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: process.env, cwd: REPO };

console.log(`cloudflare build: ${rounds} rounds; ${machineLine()}`);
const dir = await tempDir("cfbuild");
try {
  const out = join(dir.path, "out");
  let built = await buildCloudflare({ target: "cloudflare", dir: PROJECT, out }, io);
  const buildTimes = await alternate(["load", "build"] as const, rounds, async (subject) => {
    const begin = performance.now();
    if (subject === "load") await discoverProjects(PROJECT);
    else built = await buildCloudflare({ target: "cloudflare", dir: PROJECT, out }, io);
    return performance.now() - begin;
  }, (subject, round, ms) => console.log(`round ${round + 1} ${subject}: ${fmt(ms)} ms`));

  const tiny = join(dir.path, "tiny.mjs");
  await writeFile(tiny, `export default { fetch: () => new Response("ok") };\n`);
  const startTimes = await alternate(["one-line worker", "built worker"] as const, rounds, async (subject) => {
    const begin = performance.now();
    const options =
      subject === "built worker"
        ? { ...miniflareOptions(out, join(dir.path, `state-${performance.now()}`)), bindings: { AGENT_SERVE_ALLOW_ANONYMOUS: "1" } }
        : { modules: true, scriptPath: tiny, modulesRoot: dir.path, compatibilityDate: "2026-07-01" };
    const worker = new Miniflare(options);
    await worker.ready;
    const ready = performance.now() - begin;
    const response = await worker.dispatchFetch(subject === "built worker" ? "http://localhost/hello/v1/health" : "http://localhost/");
    if (!response.ok) throw new Error(`${subject}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    const answered = performance.now() - begin;
    await worker.dispose();
    return { ready, answered };
  }, (subject, round, { ready, answered }) => console.log(`round ${round + 1} ${subject}: ready ${fmt(ready)} ms, first answer ${fmt(answered)} ms`));
  const startMedian = (subject: "one-line worker" | "built worker", key: "ready" | "answered"): number => median(startTimes[subject].map((times) => times[key]));

  console.log("");
  printTable(
    ["measure", "baseline", "subject", "ratio"],
    [
      ["build vs load, modules cached (ms, median)", fmt(median(buildTimes.load)), fmt(median(buildTimes.build)), `${fmt(median(buildTimes.build) / median(buildTimes.load))}×`],
      ...(["ready", "answered"] as const).map((key) => {
        const [base, subject] = [startMedian("one-line worker", key), startMedian("built worker", key)];
        return [`workerd ${key === "ready" ? "ready" : "first answer (fresh storage)"} (ms, median)`, fmt(base), fmt(subject), `${fmt(subject / base)}×`];
      }),
    ],
  );
  console.log(`\nbundle: ${fmt(built.bytes / 1024)} KB, ${fmt(built.gzipBytes / 1024)} KB gzip (docs and playground included)`);
} finally {
  await dir.cleanup();
}
