/**
 * Signed GitHub deliveries per second at `POST /v1/channels/github/webhook` against a plain
 * channel route taking the same 21 KB body and against `GET /v1/health`, through the same host,
 * client and concurrency in the same run. The delivery repeats one `X-GitHub-Delivery`, so after
 * the first request each one is verified (HMAC-SHA256 of the raw body with Web Crypto), looks up
 * its claim in storage and answers `{ok: true, duplicate: true}`: the difference to the plain
 * route is the cost of the signature check and the dedupe lookup.
 *
 *   npx node bench/webhooks.ts [--clients=16] [--seconds=4] [--rounds=3]
 * @module
 */
import { createRequire } from "node:module";
import * as v from "valibot";
import { serveNode } from "../adapters/node.ts";
import { POST, defineChannel } from "../src/entries/channels.ts";
import { githubChannel, signGitHubPayload } from "../src/entries/channels/github.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { alternate, fmt, machineLine, median, option, printTable, runClient, scriptedProject } from "./_util.ts";

const clients = option("clients", 16);
const seconds = option("seconds", 4);
const rounds = option("rounds", 3);

const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as Array<{ name: string; examples: Array<Record<string, unknown>> }>;
const payload = examples.find((entry) => entry.name === "pull_request")!.examples.find((example) => example.action === "opened")!;
const body = JSON.stringify(payload);
const SECRET = "bench-secret";

const plain = defineChannel({
  routes: [POST("/in", { bodySchema: v.unknown(), handler: () => ({ ok: true }) })],
});
const github = githubChannel({ secret: SECRET, token: "unused", apiUrl: "http://127.0.0.1:9", onPullRequest: () => null });
const host = createHost({
  agents: [{ slug: "bench", project: { ...scriptedProject(), channels: { plain, github } }, storage: createMemoryStorage() }],
  logger: { info() {}, warn() {}, error() {} },
  auth: { allowAnonymous: true },
});
const server = await serveNode(host, { port: 0, silent: true });
const headers = {
  "x-github-event": "pull_request",
  "x-github-delivery": "bench-delivery-1",
  "x-hub-signature-256": await signGitHubPayload(SECRET, body),
};
// The first delivery is accepted (ignored by the hook); every later one is a duplicate.
const first = await fetch(`${server.url}/bench/v1/channels/github/webhook`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
if (first.status !== 200) throw new Error(`first delivery answered ${first.status}`);

const subjects = ["GET /v1/health", "plain channel route, same body", "signed GitHub delivery (duplicate)"] as const;
type Result = { requests: number; errors: number; firstError?: string; rps: number };
const targets: Record<(typeof subjects)[number], [string, unknown[] | null, Record<string, string>]> = {
  "GET /v1/health": [`${server.url}/bench/v1/health`, null, {}],
  "plain channel route, same body": [`${server.url}/bench/v1/channels/plain/in`, [payload], {}],
  "signed GitHub delivery (duplicate)": [`${server.url}/bench/v1/channels/github/webhook`, [payload], headers],
};
const results = await alternate(subjects, rounds, (subject) => {
  const [url, bodies, extra] = targets[subject];
  return runClient<Result>(["calls", url, clients, seconds, 1, JSON.stringify(bodies), JSON.stringify(extra)]);
});

console.log(machineLine());
console.log(`body: ${body.length} bytes (pull_request.opened from @octokit/webhooks-examples)`);
const base = results["GET /v1/health"];
const plainRps = results["plain channel route, same body"];
printTable(
  ["subject", "req/s (median)", "per round", "errors", "ratio to health", "ratio to plain route"],
  subjects.map((subject) => [
    subject,
    fmt(median(results[subject].map((r) => r.rps))),
    results[subject].map((r) => fmt(r.rps)).join(" / "),
    String(results[subject].reduce((sum, r) => sum + r.errors, 0)) + (results[subject].find((r) => r.firstError)?.firstError ? ` (${results[subject].find((r) => r.firstError)!.firstError})` : ""),
    fmt(median(results[subject].map((r, round) => r.rps / base[round]!.rps))),
    fmt(median(results[subject].map((r, round) => r.rps / plainRps[round]!.rps))),
  ]),
);
await host.close();
await server.close(true);
