/**
 * The client of `bench/streams.ts`, run as its own process (never on the server's event loop).
 * Prints one JSON object on stdout; `mark:<name>` lines on stderr say where it is.
 *
 *   node bench/_streams-client.ts fan <agentBaseUrl> <sessionsFile> <perSession> <turnsPerSecond> <seconds>
 *   node bench/_streams-client.ts replay <agentBaseUrl> <sessionId> <token> <rounds>
 *   node bench/_streams-client.ts hold <url> <connections> [accept]
 *
 * `fan` opens `perSession` live streams of every session in the file (`[{sessionId, token, from}]`,
 * each from its current end), every other one Server-Sent Events, and prints `mark:connected`
 * once all are open; on a line from stdin it sends follow-ups open loop at `turnsPerSecond`
 * round-robin over the sessions for `seconds`. Every event a follower receives gives one
 * latency sample: receive time minus the event's `at` (same machine clock, millisecond
 * resolution).
 * `hold` opens that many GETs of one URL, prints `mark:open` once every response has started, and
 * keeps them open (reading) until a line arrives on stdin.
 * `replay` reconnects to one session from index 0 `rounds` times: the time until its last stored
 * event arrives (the replay), then a follow-up and the delay of the first live event after it.
 * @module
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { createInterface } from "node:readline";
import { eachLine, percentile, postJson } from "./_util.ts";

const [mode, base, ...rest] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
const result = mode === "fan" ? await fan(rest) : mode === "replay" ? await replay(rest) : mode === "hold" ? await hold(rest) : undefined;
if (!result) {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
agent.destroy();
process.exit(0);

interface Session {
  sessionId: string;
  token: string;
  from: number;
}

async function fan([file, perText, rateText, secondsText]: string[]) {
  const sessions = JSON.parse(readFileSync(file!, "utf8")) as Session[];
  const per = Number(perText);
  const rate = Number(rateText);
  const seconds = Number(secondsText);
  const samples: number[] = [];
  let measuring = false;
  const requests: http.ClientRequest[] = [];
  let connected = 0;
  let failed = 0;
  const total = sessions.length * per;
  await new Promise<void>((resolve) => {
    const settle = (): void => {
      if (connected + failed === total) resolve();
    };
    let n = 0;
    for (const session of sessions) {
      for (let i = 0; i < per; i++) {
        const sse = n++ % 2 === 1;
        const request = http.get(
          `${base}/v1/session/${session.sessionId}/stream?startIndex=${session.from}`,
          { agent, headers: sse ? { accept: "text/event-stream" } : {} },
          (response) => {
            if (response.statusCode !== 200) {
              failed++;
              settle();
              return;
            }
            connected++;
            settle();
            eachLine(response, (line, now) => {
              const json = sse ? (line.startsWith("data: ") ? line.slice(6) : "") : line;
              if (!json || !measuring) return;
              samples.push(now - Date.parse((JSON.parse(json) as { at: string }).at));
            });
          },
        );
        request.on("error", () => {
          failed++;
          settle();
        });
        requests.push(request);
      }
    }
  });
  process.stderr.write(`mark:connected ${connected} ${failed}\n`);
  await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));
  measuring = true;
  const turns = Math.round(rate * seconds);
  const start = performance.now();
  let sent = 0;
  let errors = 0;
  const busy = new Set<string>();
  const pending: Array<Promise<void>> = [];
  for (let n = 0; n < turns; n++) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const session = sessions[n % sessions.length]!;
    if (busy.has(session.sessionId)) {
      errors++;
      continue;
    }
    busy.add(session.sessionId);
    sent++;
    pending.push(
      postJson(agent, `${base}/v1/session/${session.sessionId}`, { continuationToken: session.token, message: `turn ${n}` }).then(
        (reply) => {
          session.token = (reply as { continuationToken: string }).continuationToken;
          busy.delete(session.sessionId);
        },
        () => {
          errors++;
          busy.delete(session.sessionId);
        },
      ),
    );
  }
  await Promise.all(pending);
  const achieved = sent / ((performance.now() - start) / 1000);
  // Let every follower drain the last turns' events.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  measuring = false;
  for (const request of requests) request.destroy();
  samples.sort((a, b) => a - b);
  return { streams: connected, failed, turns: sent, turnErrors: errors, achievedRate: achieved, samples: samples.length, p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1) ?? 0 };
}

async function hold([countText, accept]: string[]) {
  const count = Number(countText);
  const requests: http.ClientRequest[] = [];
  let open = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < count; i++) {
      const request = http.get(base!, { agent, headers: accept ? { accept } : {} }, (response) => {
        response.on("data", () => {});
        if (++open === count) resolve();
      });
      request.on("error", reject);
      requests.push(request);
    }
  });
  process.stderr.write("mark:open\n");
  await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));
  for (const request of requests) request.destroy();
  return { open };
}

async function replay([sessionId, token, roundsText]: string[]) {
  const rounds = Number(roundsText);
  let current = token!;
  const replayMs: number[] = [];
  const liveMs: number[] = [];
  let events = 0;
  for (let round = 0; round < rounds; round++) {
    const length = await eventCount(sessionId!);
    events = length;
    const begin = performance.now();
    let replayed = 0;
    let sentAt = 0;
    await new Promise<void>((resolve, reject) => {
      const request = http.get(`${base}/v1/session/${sessionId}/stream`, { agent }, (response) => {
        let buffer = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
            const line = buffer.slice(0, end);
            buffer = buffer.slice(end + 1);
            if (!line) continue;
            const index = Number(/"index":(\d+)/.exec(line)?.[1]);
            if (index === length - 1) {
              replayed = performance.now() - begin;
              // Live from here: the follow-up's first event is the first live one.
              sentAt = performance.now();
              postJson(agent, `${base}/v1/session/${sessionId}`, { continuationToken: current, message: `round ${round}` }).then(
                (reply) => void (current = (reply as { continuationToken: string }).continuationToken),
                reject,
              );
            } else if (index >= length) {
              liveMs.push(performance.now() - sentAt);
              replayMs.push(replayed);
              request.destroy();
              resolve();
              return;
            }
          }
        });
      });
      request.on("error", (error) => {
        if (!request.destroyed) reject(error);
      });
    });
    // The turn runs on; the next round starts once it is over.
    for (let i = 0; i < 500 && !(await settled(sessionId!)); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { events, rounds, replayP50: percentile([...replayMs].sort((a, b) => a - b), 50), replayMax: Math.max(...replayMs), firstLiveP50: percentile([...liveMs].sort((a, b) => a - b), 50), firstLiveMax: Math.max(...liveMs) };
}

async function eventCount(sessionId: string): Promise<number> {
  const text = await get(`${base}/v1/session/${sessionId}/events`);
  return text.trim().split("\n").length;
}

async function settled(sessionId: string): Promise<boolean> {
  const { session } = JSON.parse(await get(`${base}/v1/session/${sessionId}`)) as { session: { status: string } };
  return session.status === "idle";
}

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve(text));
      })
      .on("error", reject);
  });
}
