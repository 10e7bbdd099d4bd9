/**
 * The client of `bench/live.ts`, run as its own process (never on the server's event loop).
 * Prints one JSON object on stdout.
 *
 *   node bench/_live-client.ts followers <agentBaseUrl> <sessionId> <token> <fromIndex> <followers> <turns>
 *   node bench/_live-client.ts creates <agentBaseUrl> <perSecond> <seconds>
 *
 * `followers` opens that many live streams of one session, then sends `turns` follow-ups one
 * after another; every event line each follower receives gives one latency sample: receive time
 * minus the event's `at` (same machine clock, millisecond resolution).
 * `creates` starts sessions open-loop at a fixed rate (a new one every 1/rate s whether or not the
 * earlier ones are done) and samples, per session, the time from sending `POST /v1/session` to the
 * first event line on its stream.
 * @module
 */
import http from "node:http";
import { eachLine, percentile, postJson } from "./_util.ts";

const [mode, base, ...rest] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
const result = mode === "followers" ? await followers(rest) : mode === "creates" ? await creates(rest) : undefined;
if (!result) {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
agent.destroy();

async function followers([sessionId, token, fromText, countText, turnsText]: string[]) {
  const count = Number(countText);
  const turns = Number(turnsText);
  const samples: number[] = [];
  let waitingSeen = 0;
  let onWaiting: (() => void) | undefined;
  const streams: http.ClientRequest[] = [];
  let connected = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < count; i++) {
      // Only what comes after the current end: each follower starts live.
      const request = http.get(`${base}/v1/session/${sessionId}/stream?startIndex=${fromText}`, { agent }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
        if (++connected === count) resolve();
        eachLine(response, (line, now) => {
          if (!line) return;
          const event = JSON.parse(line) as { type: string; at: string };
          samples.push(now - Date.parse(event.at));
          if (i === 0 && event.type === "session.waiting") {
            waitingSeen++;
            onWaiting?.();
          }
        });
      });
      request.on("error", reject);
      streams.push(request);
    }
  });
  let current = token!;
  for (let turn = 0; turn < turns; turn++) {
    const seen = waitingSeen;
    const done = new Promise<void>((resolve) => (onWaiting = () => waitingSeen > seen && resolve()));
    const reply = await postJson(agent, `${base}/v1/session/${sessionId}`, { continuationToken: current, message: `turn ${turn}` });
    current = (reply as { continuationToken: string }).continuationToken;
    await done;
  }
  // Let the other followers drain the last turn's events.
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const request of streams) request.destroy();
  samples.sort((a, b) => a - b);
  return { followers: count, turns, samples: samples.length, p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1) ?? 0 };
}

async function creates([rateText, secondsText]: string[]) {
  const rate = Number(rateText);
  const seconds = Number(secondsText);
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const samples: number[] = [];
  let errors = 0;
  const pending: Array<Promise<void>> = [];
  for (let n = 0; n < total; n++) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      oneCreate().then(
        (ms) => void samples.push(ms),
        () => void errors++,
      ),
    );
  }
  await Promise.all(pending);
  samples.sort((a, b) => a - b);
  return { rate, seconds, sessions: samples.length, errors, p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1) ?? 0, achievedRate: total / ((performance.now() - start) / 1000) };
}

async function oneCreate(): Promise<number> {
  const begin = performance.now();
  const { sessionId } = (await postJson(agent, `${base}/v1/session`, { message: "hi" })) as { sessionId: string };
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}/v1/session/${sessionId}/stream`, { agent }, (response) => {
      response.setEncoding("utf8").on("data", (chunk: string) => {
        if (!chunk.includes("\n")) return;
        resolve(performance.now() - begin);
        request.destroy();
      });
    });
    request.on("error", (error) => {
      if (!request.destroyed) reject(error);
    });
  });
}
