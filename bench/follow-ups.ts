/**
 * Sequential follow-ups on one session, in process (`host.request`, no HTTP), on the sqlite
 * default and on Redis, with what one event-log `length` read costs on the same store. Taking a
 * session's turn lease drops the cached end of its event log, so every follow-up reads the length
 * once more (docs/design/processes.md "One turn at a time per session"): the ratio of the two is
 * what that costs a follow-up.
 *
 *   npx node bench/follow-ups.ts [--turns=200] [--rounds=3]
 * @module
 */
import { createRedisStorage } from "../drivers/redis/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/host/host.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { REDIS_SERVER, startRedisServer } from "../test/_redis-server.ts";
import { alternate, fmt, machineLine, median, option, printTable, scriptedProject, tempDir } from "./_util.ts";

const TURNS = option("turns", 200);
const ROUNDS = option("rounds", 3);
const quiet = { info() {}, warn() {}, error() {} };

console.log(`# ${machineLine()}`);
console.log(`# ${TURNS} sequential follow-ups per round on one session, ${ROUNDS} rounds`);
if (!REDIS_SERVER) console.log("# redis-server is not installed: Redis is skipped");
const redis = REDIS_SERVER ? await startRedisServer() : undefined;
const dir = await tempDir("follow-ups");
const subjects = REDIS_SERVER ? (["sqlite", "redis"] as const) : (["sqlite"] as const);
let round = 0;

async function measure(subject: "sqlite" | "redis"): Promise<{ turnMs: number; lengthMs: number }> {
  round++;
  const storage: StorageDriver =
    subject === "sqlite" ? createSqliteStorage({ path: `${dir.path}/r${round}.db` }) : createRedisStorage({ url: redis!.url, prefix: `b${round}:` });
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }], auth: { allowAnonymous: true }, logger: quiet });
  try {
    const post = (path: string, body: unknown) => host.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const created = (await (await post("/bench/v1/session", { message: "hi" })).json()) as { sessionId: string; continuationToken: string };
    let token = created.continuationToken;
    /** Reads the live stream from `from` to the next `session.waiting`; resolves with the index after it. */
    const toWaiting = async (from: number): Promise<number> => {
      const response = await host.request(`/bench/v1/session/${created.sessionId}/stream?startIndex=${from}`);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended before session.waiting");
        text += decoder.decode(value, { stream: true });
        const lines = text.split("\n");
        const waiting = lines.find((line) => line.includes('"type":"session.waiting"'));
        if (waiting) {
          await reader.cancel();
          return (JSON.parse(waiting) as { index: number }).index + 1;
        }
      }
    };
    let next = await toWaiting(0);
    const started = performance.now();
    for (let i = 0; i < TURNS; i++) {
      const answer = (await (await post(`/bench/v1/session/${created.sessionId}`, { message: "again", continuationToken: token })).json()) as { continuationToken: string };
      token = answer.continuationToken;
      next = await toWaiting(next);
    }
    const turnMs = (performance.now() - started) / TURNS;
    const lengthStarted = performance.now();
    for (let i = 0; i < TURNS; i++) await storage.length(`sessions/${created.sessionId}/events`);
    return { turnMs, lengthMs: (performance.now() - lengthStarted) / TURNS };
  } finally {
    await host.close();
  }
}

try {
  const results = await alternate(subjects, ROUNDS, measure, (subject, r, value) =>
    console.log(`round ${r + 1} ${subject}: ${fmt(value.turnMs)} ms a follow-up, ${fmt(value.lengthMs)} ms a length read`),
  );
  printTable(
    ["store", "follow-up (ms, median)", "length read (ms, median)", "length / follow-up"],
    subjects.map((subject) => {
      const turn = median(results[subject].map((r) => r.turnMs));
      const length = median(results[subject].map((r) => r.lengthMs));
      return [subject, fmt(turn), fmt(length), `${fmt((length / turn) * 100, 2)}%`];
    }),
  );
} finally {
  await redis?.close();
  await dir.cleanup();
}
