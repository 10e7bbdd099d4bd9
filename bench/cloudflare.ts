/**
 * Chat turns on Workers (miniflare/workerd, `agent-serve/cloudflare`) against the same turns on
 * the Node host over sqlite, in the same run: one client, sequential turns (create, then
 * follow-ups), each read to `session.waiting` on the live stream. On Workers a session's data is
 * in its own object and what crosses to the coordinator is the listing's copy of its record and
 * its token bindings (docs/design/cloudflare.md "Storage"), so this shows what the objects and
 * those pushes cost per turn. Also: workerd start to the first answer.
 *
 *   npx node bench/cloudflare.ts [--turns=20] [--rounds=3]
 */
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/host/host.ts";
import { bundleFixtureWorker, startWorker } from "../test/_miniflare.ts";
import { alternate, fmt, machineLine, median, option, printTable, readStreamToWaiting, scriptedProject, serveLoopback, tempDir } from "./_util.ts";

const TURNS = option("turns", 20);
const ROUNDS = option("rounds", 3);
const ANONYMOUS = { AGENT_SERVE_ALLOW_ANONYMOUS: "1" };

console.log(`# ${machineLine()}`);
console.log(`# ${TURNS} sequential turns per round (1 create + ${TURNS - 1} follow-ups), ${ROUNDS} rounds`);

const bundle = await bundleFixtureWorker();
const workersDir = await tempDir("cf-workers");
const nodeDir = await tempDir("cf-node");

const startAt = performance.now();
const mf = await startWorker(bundle, workersDir.path, ANONYMOUS);
const workersUrl = String(await mf.ready).replace(/\/$/, "");
const firstInfo = await fetch(`${workersUrl}/cloud/v1/info`);
if (firstInfo.status !== 200) throw new Error(`bench: /v1/info answered ${firstInfo.status}`);
await firstInfo.text();
const coldStartMs = performance.now() - startAt;

const storage = createSqliteStorage({ path: `${nodeDir.path}/state.db` });
const host = createHost({ agents: [{ slug: "cloud", project: scriptedProject("cloud"), storage }], auth: { allowAnonymous: true }, logger: { info() {}, warn() {}, error() {} } });
const node = await serveLoopback((request) => host.fetch(request));

async function turns(base: string): Promise<number> {
  const started = performance.now();
  const created = await fetch(`${base}/cloud/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "/reply hi" }) });
  let { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
  await readStreamToWaiting(`${base}/cloud/v1/session/${sessionId}/stream`);
  for (let turn = 1; turn < TURNS; turn++) {
    // The turn's events start after what is there now; its stream is read from there to session.waiting.
    const before = (await (await fetch(`${base}/cloud/v1/session/${sessionId}/events`)).text()).trim().split("\n").length;
    const response = await fetch(`${base}/cloud/v1/session/${sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: `/reply turn ${turn}`, continuationToken }),
    });
    if (response.status !== 200) throw new Error(`bench: follow-up answered ${response.status}: ${await response.text()}`);
    ({ continuationToken } = (await response.json()) as { continuationToken: string });
    await readStreamToWaiting(`${base}/cloud/v1/session/${sessionId}/stream?startIndex=${before}`);
  }
  return TURNS / ((performance.now() - started) / 1000);
}

const results = await alternate(["workers", "node"] as const, ROUNDS, (subject) => turns(subject === "workers" ? workersUrl : node.url), (subject, round, rate) =>
  console.log(`round ${round + 1} ${subject}: ${fmt(rate)} turns/s`),
);

const workers = median(results.workers);
const baseline = median(results.node);
console.log();
printTable(
  ["subject", "turns/s (median)", "vs Node + sqlite"],
  [
    ["Workers (miniflare): session object + coordinator", fmt(workers), `${fmt(workers / baseline)}×`],
    ["Node host, sqlite store", fmt(baseline), "1×"],
  ],
);
console.log(`\nworkerd start to the first /v1/info answer: ${fmt(coldStartMs)} ms (bundle ${fmt(bundle.script.length / 1024 / 1024)} MB)`);

await mf.dispose();
await node.close();
await host.close();
await Promise.all([bundle.cleanup(), workersDir.cleanup(), nodeDir.cleanup()]);
