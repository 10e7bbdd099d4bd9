/**
 * The host's log: request lines, turns with duration and tokens, tool calls, and
 * timed firings reach both the sink (the terminal) and `GET /v1/logs` (the playground's Logs
 * tab), at the level the host is given, without internal tags; the CLI prints them as text or
 * JSON lines.
 */
import { describe, expect, it } from "vitest";
import { createCliLogger } from "../cli/cli-logger.ts";
import { main } from "../cli/main.ts";
import { plainMessage } from "../src/base/logger.ts";
import { createHost } from "../src/host/host.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { HostLogger, LogLine } from "../src/base/logging.ts";
import { helloOptions, postJson, project } from "./_harness.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { settled, toolLine } from "./_workspace.ts";

/** expect.poll gives up after 1 s by default: too little for a turn on a loaded machine. */
const PATIENCE = { timeout: 10_000 };

function recording(): HostLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (message) => lines.push(`debug ${message}`),
    info: (message) => lines.push(`info ${message}`),
    warn: (message) => lines.push(`warn ${message}`),
    error: (message) => lines.push(`error ${message}`),
  };
}

const tools = {
  lookup: defineTool({ description: "Looks a word up", execute: () => "found" }),
  broken: defineTool({ description: "Always throws", execute: () => { throw new Error("[agent-serve] [dictionary] offline"); } }),
};

async function logsOf(host: ReturnType<typeof createHost>, after = 0): Promise<{ lines: LogLine[]; next: number }> {
  return (await (await host.request(`/hello/v1/logs?after=${after}`)).json()) as { lines: LogLine[]; next: number };
}

describe("host log", () => {
  it("logs requests, turns with tokens and duration, and tool calls, to the sink and /v1/logs alike", async () => {
    const sink = recording();
    const host = createHost(helloOptions({ logger: sink, agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage() }] }));
    try {
      const created = await host.request("/hello/v1/session", postJson({ message: [toolLine("lookup", {}), toolLine("broken", {}), "/reply done"].join("\n") }));
      expect(created.status).toBe(200);
      const { sessionId } = (await created.json()) as { sessionId: string };
      await settled({ kind: "in-process", host, fetch: (path, init) => host.request(path, init) }, "/hello", sessionId);
      const { lines } = await logsOf(host);
      const messages = lines.map((line) => `${line.level} ${line.message}`);
      expect(messages).toContainEqual(expect.stringMatching(/^info POST \/hello\/v1\/session 200 \d+ms$/));
      expect(messages).toContainEqual(`info hello ${sessionId} turn started`);
      expect(messages).toContainEqual(expect.stringMatching(new RegExp(`^info hello ${sessionId} tool lookup ok in \\d+ms$`)));
      // The tool's internal tag is gone from what people read.
      expect(messages).toContainEqual(expect.stringMatching(new RegExp(`^warn hello ${sessionId} tool broken failed in \\d+ms: offline$`)));
      expect(messages).toContainEqual(expect.stringMatching(new RegExp(`^info hello ${sessionId} turn completed in \\d+(ms|\\.\\ds), \\d+ in / \\d+ out tokens$`)));
      const completed = lines.find((line) => line.message.includes("turn completed"));
      expect(completed?.fields).toMatchObject({ agent: "hello", sessionId, event: "turn.completed", usage: { inputTokens: expect.any(Number) } });
      const request = lines.find((line) => line.message.startsWith("POST "));
      expect(request?.fields).toMatchObject({ method: "POST", path: "/hello/v1/session", status: 200, ms: expect.any(Number) });
      // The sink saw the same lines; the Logs tab's own poll stays out at the default level.
      expect(sink.lines).toContain(`info hello ${sessionId} turn started`);
      await logsOf(host);
      expect(sink.lines.some((line) => line.includes("/v1/logs"))).toBe(false);
      expect(lines.every((line) => !line.message.includes("[agent-serve]"))).toBe(true);
    } finally {
      await host.close();
    }
  });

  it("logs a failed turn as a warning and a stopped one as stopped, without tags", async () => {
    const sink = recording();
    const host = createHost(helloOptions({ logger: sink }));
    try {
      const target = { kind: "in-process" as const, host, fetch: (path: string, init?: RequestInit) => host.request(path, init) };
      const failed = (await (await host.request("/hello/v1/session", postJson({ message: "/tool" }))).json()) as { sessionId: string };
      const events = await settled(target, "/hello", failed.sessionId);
      const failure = events.find((event) => event.type === "turn.failed");
      expect(failure?.data["message"]).toBe("`/tool` needs a tool name: /tool <name> <json>");
      expect(sink.lines).toContain(`warn hello ${failed.sessionId} turn failed: \`/tool\` needs a tool name: /tool <name> <json>`);

      const slow = (await (await host.request("/hello/v1/session", postJson({ message: "/sleep 20000" }))).json()) as { sessionId: string };
      await expect.poll(() => sink.lines.includes(`info hello ${slow.sessionId} turn started`), PATIENCE).toBe(true);
      expect((await host.request(`/hello/v1/session/${slow.sessionId}/stop`, { method: "POST" })).status).toBeLessThan(300);
      await expect.poll(() => sink.lines.find((line) => line.startsWith(`info hello ${slow.sessionId} turn stopped`)), PATIENCE).toBe(`info hello ${slow.sessionId} turn stopped (turn interrupted)`);
    } finally {
      await host.close();
    }
  });

  it("honours the level: debug adds polls, warn drops requests and turns", async () => {
    for (const [logLevel, expectPoll, expectRequest] of [["debug", true, true], ["warn", false, false]] as const) {
      const sink = recording();
      const host = createHost(helloOptions({ logger: sink, logLevel }));
      try {
        await host.request("/hello/v1/logs");
        await host.request("/hello/v1/session", postJson({ message: "/reply hi" }));
        expect(sink.lines.some((line) => /^debug GET \/hello\/v1\/logs 200 \d+ms$/.test(line)), logLevel).toBe(expectPoll);
        expect(sink.lines.some((line) => line.startsWith("info POST /hello/v1/session")), logLevel).toBe(expectRequest);
        expect((await logsOf(host)).lines.some((line) => line.level === "info"), logLevel).toBe(expectRequest);
      } finally {
        await host.close();
      }
    }
  });

  it("logs schedule firings", async () => {
    const sink = recording();
    const host = createHost(helloOptions({ logger: sink, dev: true, agents: [{ slug: "hello", project: project({ schedules: { digest: { cron: "0 9 * * *", markdown: "/reply digest" } } }), storage: createMemoryStorage() }] }));
    try {
      expect((await host.request("/hello/v1/dev/schedules/digest", { method: "POST" })).status).toBe(200);
      expect(sink.lines).toContain("info schedule digest fired by hand");
    } finally {
      await host.close();
    }
  });
});

describe("plainMessage", () => {
  it("drops internal tags wherever they appear", () => {
    expect(plainMessage("[agent-serve] [scripted] `/tool` needs a name")).toBe("`/tool` needs a name");
    expect(plainMessage("mcp: [agent-serve] [loader] no file")).toBe("mcp: no file");
    expect(plainMessage("[agent-serve] unhandled error")).toBe("unhandled error");
    expect(plainMessage("a [bracketed] word stays")).toBe("a [bracketed] word stays");
  });
});

describe("the terminal log", () => {
  const capture = (isTTY = false) => {
    let out = "";
    let err = "";
    return {
      io: { stdout: { isTTY, write: (s: string) => (out += s) }, stderr: { isTTY, write: (s: string) => (err += s) }, env: {}, cwd: "." },
      out: () => out,
      err: () => err,
    };
  };

  it("prints text for people: time, level, message, no tags", () => {
    const { io, out, err } = capture();
    const logger = createCliLogger(io);
    logger.info("POST /hello/v1/session 200 3ms", { status: 200 });
    logger.error("[agent-serve] [storage] disk full", new Error("[agent-serve] [fs] ENOSPC"));
    expect(out()).toMatch(/^\d\d:\d\d:\d\d info  POST \/hello\/v1\/session 200 3ms\n$/);
    expect(err()).toMatch(/^\d\d:\d\d:\d\d error disk full: Error: ENOSPC/);
    expect(err()).not.toContain("[agent-serve]");
  });

  it("prints one JSON object per line with --log-format json", () => {
    const { io, out, err } = capture(true);
    const logger = createCliLogger(io, { format: "json" });
    logger.info("POST /x 200 3ms", { method: "POST", path: "/x", status: 200, ms: 3 });
    logger.warn("slow");
    expect(JSON.parse(out())).toMatchObject({ level: "info", msg: "POST /x 200 3ms", method: "POST", path: "/x", status: 200, ms: 3, time: expect.any(String) });
    expect(JSON.parse(err())).toMatchObject({ level: "warn", msg: "slow" });
  });

  it("refuses unknown levels and formats", async () => {
    for (const [flag, value] of [["--log-level", "loud"], ["--log-format", "xml"]]) {
      let err = "";
      const code = await main({ argv: ["serve", "examples/hello", flag!, value!], stdout: { write: () => {} }, stderr: { write: (s: string) => (err += s) }, env: {}, cwd: process.cwd() });
      expect(code).toBe(2);
      expect(err).toContain(flag);
    }
  });
});
