/**
 * The benchmark client, run as its own process by `bench/_util.ts` `runClient` so it never shares
 * the server's event loop. Prints one JSON object on stdout.
 *
 *   node bench/_load.ts requests <url> <connections> <seconds> [warmupSeconds]
 *   node bench/_load.ts turns <agentBaseUrl> <clients> <seconds> [warmupSeconds]
 *   node bench/_load.ts a2a-turns <agentBaseUrl> <clients> <seconds> [warmupSeconds]
 *   node bench/_load.ts download <url>
 *   node bench/_load.ts calls <url> <clients> <seconds> <warmupSeconds> <bodiesJson> [headersJson]
 *
 * `requests` is a closed-loop GET load over raw keep-alive sockets: each connection sends the next
 * request when the previous response is complete. It parses only what it needs (status,
 * content-length or chunked framing), so on a 2-core machine the client costs far less CPU per
 * request than the server and the server stays the bottleneck; `clientCpu` in the output says
 * how busy the client was (1 = one core saturated).
 * @module
 */
import http from "node:http";
import net from "node:net";
import { percentile, readStreamToWaiting } from "./_util.ts";

const [mode, url, ...rest] = process.argv.slice(2);
if (!mode || !url) {
  process.stderr.write("usage: _load.ts requests|turns|download <url> ...\n");
  process.exit(2);
}
const result =
  mode === "requests"
    ? await requests(url, Number(rest[0] ?? 32), Number(rest[1] ?? 5), Number(rest[2] ?? 1))
    : mode === "turns" || mode === "a2a-turns"
      ? await turns(url, Number(rest[0] ?? 1), Number(rest[1] ?? 5), Number(rest[2] ?? 1), mode === "a2a-turns" ? oneA2aTurn : oneTurn)
      : mode === "download"
        ? await download(url)
        : mode === "calls"
          ? await calls(url, Number(rest[0] ?? 16), Number(rest[1] ?? 4), Number(rest[2] ?? 1), JSON.parse(rest[3] ?? "null") as unknown[] | null, JSON.parse(rest[4] ?? "{}") as Record<string, string>)
          : undefined;
if (!result) {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);

// --- requests ---

async function requests(target: string, connections: number, seconds: number, warmup: number) {
  const { hostname, port, pathname, search } = new URL(target);
  const head = Buffer.from(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: keep-alive\r\n\r\n`);
  const latencies: number[] = [];
  let completed = 0;
  let errors = 0;
  let measuring = false;
  let stopping = false;
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => connect(hostname, Number(port))),
  );
  const done = sockets.map(
    (socket) =>
      new Promise<void>((resolve) => {
        let buffer: Buffer = Buffer.alloc(0);
        let sentAt = 0;
        const send = () => {
          if (stopping) {
            socket.end();
            resolve();
            return;
          }
          sentAt = performance.now();
          socket.write(head);
        };
        socket.on("data", (chunk: Buffer) => {
          buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
          const parsed = responseEnd(buffer);
          if (!parsed) return;
          buffer = buffer.subarray(parsed.end);
          if (measuring) {
            completed++;
            latencies.push(performance.now() - sentAt);
            if (parsed.status !== 200) errors++;
          }
          send();
        });
        socket.on("error", () => {
          errors++;
          resolve();
        });
        socket.on("close", () => resolve());
        send();
      }),
  );
  await sleep(warmup * 1000);
  measuring = true;
  mark("start");
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await sleep(seconds * 1000);
  measuring = false;
  mark("stop");
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  stopping = true;
  await Promise.race([Promise.all(done), sleep(2000)]);
  for (const socket of sockets) socket.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: completed,
    errors,
    seconds: elapsed,
    rps: completed / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    clientCpu: (cpu.user + cpu.system) / 1e6 / elapsed,
  };
}

function connect(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, noDelay: true }, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Where the first complete HTTP/1.1 response in `buffer` ends, or undefined if incomplete. */
function responseEnd(buffer: Buffer): { status: number; end: number } | undefined {
  const headEnd = buffer.indexOf("\r\n\r\n");
  if (headEnd === -1) return undefined;
  const head = buffer.toString("latin1", 0, headEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    return buffer.length >= end ? { status, end } : undefined;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const end = chunkedEnd(buffer, bodyStart);
    return end === -1 ? undefined : { status, end };
  }
  return { status, end: bodyStart };
}

function chunkedEnd(buffer: Buffer, from: number): number {
  let at = from;
  for (;;) {
    const lineEnd = buffer.indexOf("\r\n", at);
    if (lineEnd === -1) return -1;
    const size = Number.parseInt(buffer.toString("latin1", at, lineEnd), 16);
    if (size === 0) {
      // No trailers are sent here: the last chunk is followed by one empty line.
      return buffer.length >= lineEnd + 4 ? lineEnd + 4 : -1;
    }
    at = lineEnd + 2 + size + 2;
    if (at > buffer.length) return -1;
  }
}

// --- turns ---

async function turns(base: string, clients: number, seconds: number, warmup: number, one: (base: string, agent: http.Agent) => Promise<void>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let completed = 0;
  let errors = 0;
  let measuring = false;
  let stopping = false;
  let firstError: string | undefined;
  const worker = async () => {
    while (!stopping) {
      const startedAt = performance.now();
      try {
        await one(base, agent);
        if (measuring && !stopping) {
          completed++;
          latencies.push(performance.now() - startedAt);
        }
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
        await sleep(10);
      }
    }
  };
  const workers = Array.from({ length: clients }, worker);
  await sleep(warmup * 1000);
  measuring = true;
  mark("start");
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await sleep(seconds * 1000);
  stopping = true;
  mark("stop");
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await Promise.all(workers);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    turns: completed,
    errors,
    firstError,
    seconds: elapsed,
    turnsPerSecond: completed / elapsed,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    clientCpu: (cpu.user + cpu.system) / 1e6 / elapsed,
  };
}

/** One chat turn: create a session with `hi`, then read its live stream up to `session.waiting`. */
async function oneTurn(base: string, agent: http.Agent): Promise<void> {
  const created = await httpRequest(`${base}/v1/session`, agent, "POST", JSON.stringify({ message: "hi" }));
  const { sessionId } = JSON.parse(created) as { sessionId: string };
  await readStreamToWaiting(`${base}/v1/session/${sessionId}/stream`);
}

/** One A2A turn: a blocking `SendMessage` in a new context, answered once the task completes. */
async function oneA2aTurn(base: string, agent: http.Agent): Promise<void> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } } });
  const answer = JSON.parse(await httpRequest(`${base}/v1/a2a`, agent, "POST", body)) as { result?: { task?: { status?: { state?: string } } }; error?: { message: string } };
  const state = answer.result?.task?.status?.state;
  if (state !== "TASK_STATE_COMPLETED") throw new Error(`SendMessage answered ${answer.error?.message ?? state}`);
}

function httpRequest(target: string, agent: http.Agent, method: string, body?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      target,
      { method, agent, headers: body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          if (response.statusCode === 200) resolve(text);
          else reject(new Error(`${method} ${target} answered ${response.statusCode}: ${text.slice(0, 200)}`));
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

// --- download ---

/** GETs `target`, reading every byte; counts lines and reports the last line's `index`. */
function download(target: string) {
  return new Promise<{ status: number; bytes: number; lines: number; lastIndex: number | null; ms: number }>(
    (resolve, reject) => {
      const start = performance.now();
      const request = http.get(target, { agent: false }, (response) => {
        let bytes = 0;
        let lines = 0;
        let tail: Buffer = Buffer.alloc(0);
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
          // Keep enough of the end to hold the last complete line.
          tail = Buffer.concat([tail, chunk]);
          if (tail.length > 1 << 16) tail = tail.subarray(tail.length - (1 << 15));
        });
        response.on("end", () => {
          const ms = performance.now() - start;
          const text = tail.toString("utf8").trimEnd();
          const last = text.slice(text.lastIndexOf("\n") + 1);
          let lastIndex: number | null = null;
          try {
            lastIndex = (JSON.parse(last) as { index: number }).index;
          } catch {
            lastIndex = null;
          }
          resolve({ status: response.statusCode ?? 0, bytes, lines, lastIndex, ms });
        });
        response.on("error", reject);
      });
      request.on("error", reject);
    },
  );
}

/** Tells the parent (see `runClient`) that the measured window starts or stops. */
function mark(name: "start" | "stop"): void {
  process.stderr.write(`mark:${name}\n`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// --- calls ---

/**
 * Closed-loop requests through Node's HTTP client with keep-alive: GET when `bodies` is null,
 * else POST with worker i sending `bodies[i % bodies.length]` (one session per worker, say).
 * Every subject of one benchmark goes through this same client, so its cost is the same for all.
 */
async function calls(url: string, clients: number, seconds: number, warmup: number, bodies: unknown[] | null, extraHeaders: Record<string, string> = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  let completed = 0;
  let errors = 0;
  let measuring = false;
  let stopping = false;
  let firstError: string | undefined;
  const once = (body: string | undefined) =>
    new Promise<number>((resolve, reject) => {
      const request = http.request(url, { agent, method: body === undefined ? "GET" : "POST", headers: body === undefined ? extraHeaders : { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...extraHeaders } }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", reject);
      });
      request.on("error", reject);
      request.end(body);
    });
  const worker = async (i: number) => {
    const body = bodies === null ? undefined : JSON.stringify(bodies[i % bodies.length]);
    while (!stopping) {
      try {
        const status = await once(body);
        if (status !== 200) throw new Error(`status ${status}`);
        if (measuring && !stopping) completed++;
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  const workers = Array.from({ length: clients }, (_, i) => worker(i));
  await sleep(warmup * 1000);
  measuring = true;
  mark("start");
  const start = performance.now();
  await sleep(seconds * 1000);
  stopping = true;
  mark("stop");
  const elapsed = (performance.now() - start) / 1000;
  await Promise.all(workers);
  agent.destroy();
  return { requests: completed, errors, firstError, rps: completed / elapsed };
}
