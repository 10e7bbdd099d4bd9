import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { z } from "zod";
import { afterAll, describe, expect, expectTypeOf, test } from "vitest";
import { createLocalRuntime } from "../loader/runtime.ts";
import type { StandardSchema } from "../src/base/validate.ts";
import { HTTPError } from "../src/base/errors.ts";
import type { RuntimePort } from "../src/base/ports/runtime.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { ToolContext, ToolDefinition } from "../src/entries/tools.ts";
import { normalizeToolResult, runAgentTool, runServerTool, toolCallIdForDirectCall } from "../src/engine/tools/run-tool.ts";
import { scratchSession } from "../src/engine/tools/scratch-session.ts";
import { canDescribeSchema, isStandardSchema, toolInputJsonSchema, validateToolInput } from "../src/engine/tools/schema.ts";
import { validateHooks, validateTools } from "../src/engine/tools/validate-tools.ts";
import { testHostServices } from "./_host-services.ts";

const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-tools-"));
afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));

const Weather = v.object({
  city: v.pipe(v.string(), v.minLength(1), v.description("City name")),
  days: v.optional(v.pipe(v.string(), v.transform(Number)), "3"),
});

/** A plain execution context: the host fills these members; the tool core only passes them on. */
function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    toolCallId: "call_1",
    session: scratchSession({ authenticator: "test", principalId: "tester", principalType: "local" }),
    workspaceDir: undefined,
    stateRoot: undefined,
    host: testHostServices(),
    send: () => Promise.reject(new Error("no channels here")),
    getSession: () => Promise.resolve(null),
    artifacts: { tag: () => Promise.reject(new Error("no artifacts here")), list: () => Promise.resolve([]) },
    signal: new AbortController().signal,
    ...overrides,
  };
}

const run = (execute: ToolDefinition["execute"]) => runServerTool({ description: "t", execute }, {}, context());

/** A zombie counts as dead: it has exited and only waits for its new parent to reap it. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] !== "Z";
  } catch {
    return true;
  }
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("defineTool", () => {
  test("is an identity whose execute input is the schema's output type", () => {
    const weather = defineTool({
      description: "Weather",
      inputSchema: Weather,
      needsApproval: (input) => input.days > 7,
      execute: ({ city, days }) => `${city}:${days}`,
    });
    expectTypeOf(weather.execute).parameter(0).toEqualTypeOf<{ city: string; days: number }>();
    const plain = defineTool({ description: "Plain", inputSchema: { type: "object" }, execute: (input) => input });
    expectTypeOf(plain.execute).parameter(0).toEqualTypeOf<unknown>();
    const zodTool = defineTool({ description: "Zod", inputSchema: z.object({ n: z.number() }), execute: ({ n }) => n + 1 });
    // Typed tools still fit where the host takes tools by name.
    const tools: Record<string, ToolDefinition> = { weather, plain, zodTool };
    expect(tools.weather).toBe(weather);
    // @ts-expect-error `town` is not in the schema's output
    defineTool({ description: "Wrong", inputSchema: Weather, execute: ({ town }) => town });
  });
});

describe("tool input schemas", () => {
  test("valibot converts to JSON Schema of the input, without $schema", () => {
    expect(toolInputJsonSchema({ inputSchema: Weather })).toEqual({
      type: "object",
      properties: {
        city: { type: "string", minLength: 1, description: "City name" },
        days: { type: "string", default: "3" },
      },
      required: ["city"],
    });
  });

  test("a parts JSON Schema cannot express are dropped, not thrown", () => {
    const schema = toolInputJsonSchema({ inputSchema: v.object({ at: v.date(), n: v.number() }) });
    expect(schema).toMatchObject({ type: "object", properties: { n: { type: "number" } } });
    expect(schema).not.toHaveProperty("$schema");
  });

  test("zod goes through Standard JSON Schema", () => {
    expect(toolInputJsonSchema({ inputSchema: z.object({ n: z.number().describe("N") }) })).toEqual({
      type: "object",
      properties: { n: { type: "number", description: "N" } },
      required: ["n"],
    });
  });

  test("a Standard Schema with only a toJSONSchema method uses it", () => {
    const schema = {
      "~standard": { version: 1, vendor: "custom", validate: (value: unknown) => ({ value }) },
      toJSONSchema: () => ({ $schema: "x", type: "object", properties: { q: { type: "string" } } }),
    } as const;
    expect(toolInputJsonSchema({ inputSchema: schema })).toEqual({ type: "object", properties: { q: { type: "string" } } });
  });

  test("a Standard Schema that cannot describe itself is an open object", () => {
    const schema: StandardSchema = { "~standard": { version: 1, vendor: "custom", validate: (value) => ({ value }) } };
    expect(toolInputJsonSchema({ inputSchema: schema })).toEqual({ type: "object", properties: {} });
    expect(canDescribeSchema(schema)).toBe(false);
    expect(canDescribeSchema(Weather)).toBe(true);
  });

  test("plain JSON Schema passes through as is; no schema is an open object", () => {
    const plain = { type: "object", properties: { x: { type: "integer" } }, additionalProperties: false };
    expect(toolInputJsonSchema({ inputSchema: plain })).toBe(plain);
    expect(toolInputJsonSchema({})).toEqual({ type: "object", properties: {} });
  });

  test("callers get a copy: decorating a returned schema leaves the next one alone", () => {
    const first = toolInputJsonSchema({ inputSchema: Weather });
    first.additionalProperties = false;
    expect(toolInputJsonSchema({ inputSchema: Weather })).not.toHaveProperty("additionalProperties");
  });

  test("isStandardSchema tells validators from JSON Schema", () => {
    expect(isStandardSchema(Weather)).toBe(true);
    expect(isStandardSchema(z.string())).toBe(true);
    expect(isStandardSchema({ type: "object" })).toBe(false);
    expect(isStandardSchema(null)).toBe(false);
    expect(isStandardSchema({ "~standard": { validate: "no" } })).toBe(false);
  });
});

describe("validateToolInput", () => {
  test("a Standard Schema validates and transforms", async () => {
    await expect(validateToolInput({ inputSchema: Weather }, { city: "Oslo", days: "5" })).resolves.toEqual({ city: "Oslo", days: 5 });
    await expect(validateToolInput({ inputSchema: Weather }, { city: "Oslo" })).resolves.toEqual({ city: "Oslo", days: 3 });
  });

  test("invalid input is a 400 invalid_request with issues", async () => {
    const error: unknown = await validateToolInput({ inputSchema: Weather }, { city: 1 }).catch((e: unknown) => e);
    expect(HTTPError.isError(error)).toBe(true);
    if (!HTTPError.isError(error)) return;
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toMatch(/^invalid tool input at city: /);
    expect(error.data?.issues).toEqual([{ path: "city", message: expect.any(String) }]);
  });

  test("zod and async Standard Schemas validate too", async () => {
    await expect(validateToolInput({ inputSchema: z.object({ n: z.coerce.number() }) }, { n: "4" })).resolves.toEqual({ n: 4 });
    const asyncSchema: StandardSchema<string> = {
      "~standard": {
        version: 1,
        vendor: "custom",
        validate: async (value) => (typeof value === "string" ? { value: value.toUpperCase() } : { issues: [{ message: "want a string" }] }),
      },
    };
    await expect(validateToolInput({ inputSchema: asyncSchema }, "abc")).resolves.toBe("ABC");
    await expect(validateToolInput({ inputSchema: asyncSchema }, 1)).rejects.toMatchObject({ status: 400, message: "invalid tool input: want a string" });
  });

  test("plain JSON Schema and no schema pass raw input unvalidated", async () => {
    const raw = { city: 42 };
    await expect(validateToolInput({ inputSchema: { type: "object", properties: { city: { type: "string" } } } }, raw)).resolves.toBe(raw);
    await expect(validateToolInput({}, raw)).resolves.toBe(raw);
  });
});

describe("runServerTool result normalization", () => {
  test("a string passes verbatim", async () => {
    expect(await run(() => "  sunny \n")).toEqual({ isError: false, result: "  sunny \n" });
  });

  test("JSON values pass as is; undefined is null", async () => {
    expect(await run(() => ({ temp: 3, tags: ["a"], nested: { ok: true, none: null } }))).toEqual({
      isError: false,
      result: { temp: 3, tags: ["a"], nested: { ok: true, none: null } },
    });
    expect(await run(() => 42)).toEqual({ isError: false, result: 42 });
    expect(await run(() => false)).toEqual({ isError: false, result: false });
    expect(await run(() => [1, "two"])).toEqual({ isError: false, result: [1, "two"] });
    expect(await run(() => null)).toEqual({ isError: false, result: null });
    expect(await run(() => undefined)).toEqual({ isError: false, result: null });
    expect(await run(async () => {})).toEqual({ isError: false, result: null });
  });

  test("non-JSON values are serialized as JSON would", async () => {
    const at = new Date("2025-01-02T03:04:05.000Z");
    expect(await run(() => ({ at, big: 10n, fn: () => 1, nan: Number.NaN, map: new Map([[1, 2]]), list: [undefined] }))).toEqual({
      isError: false,
      result: { at: "2025-01-02T03:04:05.000Z", big: "10", nan: null, map: {}, list: [null] },
    });
    expect(await run(() => () => 1)).toEqual({ isError: false, result: null });
    expect(await run(() => 7n)).toEqual({ isError: false, result: "7" });
  });

  test("an unserializable value is an error result, not a throw", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const outcome = await run(() => cyclic);
    expect(outcome.isError).toBe(true);
    expect(JSON.stringify(outcome.result)).toMatch(/not serializable as JSON/);
  });

  test("an envelope is the result, with its isError", async () => {
    const ok = { content: [{ type: "text", text: "done" }] };
    expect(await run(() => ok)).toEqual({ isError: false, result: ok });
    const failed = { content: [{ type: "text", text: "no such city" }], isError: true };
    expect(await run(() => failed)).toEqual({ isError: true, result: failed });
    // Not an envelope: content parts without a type, or a non-boolean isError.
    expect(await run(() => ({ content: ["x"], isError: true }))).toEqual({ isError: false, result: { content: ["x"], isError: true } });
    expect(await run(() => ({ content: [], isError: "yes" }))).toEqual({ isError: false, result: { content: [], isError: "yes" } });
  });

  test("a throwing tool yields an error envelope with the message", async () => {
    expect(await run(() => {
      throw new Error("boom");
    })).toEqual({ isError: true, result: { content: [{ type: "text", text: "boom" }] } });
    expect(await run(() => Promise.reject(new TypeError("late boom")))).toEqual({
      isError: true,
      result: { content: [{ type: "text", text: "late boom" }] },
    });
    expect(await run(() => {
      throw "plain string"; // oxlint-disable-line no-throw-literal
    })).toEqual({ isError: true, result: { content: [{ type: "text", text: "plain string" }] } });
  });

  test("execute receives the input and the context; no execute is an error result", async () => {
    const seen: unknown[] = [];
    const def: ToolDefinition = {
      description: "t",
      execute: (input, ctx) => {
        seen.push(input, ctx.toolCallId);
        return "ok";
      },
    };
    expect(await runServerTool(def, { a: 1 }, context({ toolCallId: "call_9" }))).toEqual({ isError: false, result: "ok" });
    expect(seen).toEqual([{ a: 1 }, "call_9"]);
    expect((await runServerTool({ description: "t" }, {}, context())).isError).toBe(true);
  });

  test("normalizeToolResult is the same rule for any value", () => {
    expect(normalizeToolResult("x")).toEqual({ isError: false, result: "x" });
    expect(normalizeToolResult({ content: [{ type: "text", text: "t" }], isError: false })).toEqual({
      isError: false,
      result: { content: [{ type: "text", text: "t" }], isError: false },
    });
  });

  test("direct-call ids are tool_<name>_<id> and unique", () => {
    const a = toolCallIdForDirectCall("weather");
    const b = toolCallIdForDirectCall("weather");
    expect(a).toMatch(/^tool_weather_[A-Za-z0-9]{16}$/);
    expect(a).not.toBe(b);
  });
});

describe("local runtime", () => {
  const runtime = createLocalRuntime({ stateRoot });
  const signal = new AbortController().signal;

  test("session workspaces live under the state root; separators are refused", async () => {
    const dir = await runtime.sessionWorkspace("ses_abc123");
    expect(dir).toBe(join(stateRoot, "workspaces", "ses_abc123"));
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(await runtime.sessionWorkspace("ses_abc123")).toBe(dir);
    await expect(runtime.sessionWorkspace("../escape")).rejects.toThrow(/not a session id/);
    await expect(runtime.sessionWorkspace("ses_a/b")).rejects.toThrow(/not a session id/);
    await expect(runtime.sessionWorkspace("")).rejects.toThrow(/not a session id/);
    expect(runtime.stateRoot).toBe(stateRoot);
  });

  test("scratch workspaces are fresh and removed recursively", async () => {
    const a = await runtime.scratchWorkspace();
    const b = await runtime.scratchWorkspace();
    expect(a.path).not.toBe(b.path);
    const out = await runtime.runScript?.("mkdir -p deep/er && echo hi > deep/er/f", { cwd: a.path, stdin: "", timeoutMs: 5000, signal });
    expect(out?.exitCode).toBe(0);
    expect(existsSync(join(a.path, "deep/er/f"))).toBe(true);
    await a.remove();
    await b.remove();
    expect(existsSync(a.path)).toBe(false);
    expect(existsSync(b.path)).toBe(false);
  });

  test("a script reads JSON from stdin and runs in cwd", async () => {
    const cwd = await runtime.sessionWorkspace("ses_script");
    const out = await runtime.runScript?.("pwd; cat", { cwd, stdin: '{"a":1}', timeoutMs: 5000, signal });
    expect(out).toEqual({ exitCode: 0, stdout: `${cwd}\n{"a":1}`, stderr: "", killed: false });
  });

  test("output is capped per stream", async () => {
    const capped = createLocalRuntime({ stateRoot, maxOutputBytes: 1000 });
    const out = await capped.runScript?.("head -c 5000 /dev/zero | tr '\\0' a; head -c 3000 /dev/zero | tr '\\0' b >&2", {
      cwd: stateRoot,
      stdin: "",
      timeoutMs: 5000,
      signal,
    });
    expect(out?.stdout).toBe(`${"a".repeat(1000)}\n[output truncated: 4000 more bytes]`);
    expect(out?.stderr).toBe(`${"b".repeat(1000)}\n[output truncated: 2000 more bytes]`);
  });

  test("a timeout kills the whole process group", async () => {
    const pidFile = join(stateRoot, "bg.pid");
    const started = Date.now();
    // Long enough for the shell to have written the pid file on a loaded machine.
    const out = await runtime.runScript?.(`sleep 30 & echo $! > ${pidFile}; wait`, { cwd: stateRoot, stdin: "", timeoutMs: 2_000, signal });
    expect(out?.killed).toBe(true);
    expect(out?.exitCode).not.toBe(0);
    // Well under the 30 s sleep.
    expect(Date.now() - started).toBeLessThan(10_000);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await until(() => !processAlive(pid), 3000, "the background child to die");
  });

  test("a script that ignores SIGTERM is killed after the grace period", async () => {
    const quick = createLocalRuntime({ stateRoot, killGraceMs: 100 });
    const started = Date.now();
    // Long enough for the shell to have set its trap before the SIGTERM, on a loaded machine too.
    const out = await quick.runScript?.("trap '' TERM; sleep 30", { cwd: stateRoot, stdin: "", timeoutMs: 1_000, signal });
    expect(out?.killed).toBe(true);
    // Well under the 30 s sleep.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test("an abort kills the script", async () => {
    const controller = new AbortController();
    const pending = runtime.runScript?.("sleep 30", { cwd: stateRoot, stdin: "", timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const out = await pending;
    expect(out?.killed).toBe(true);
    const already = await runtime.runScript?.("echo never", { cwd: stateRoot, stdin: "", timeoutMs: 5000, signal: controller.signal });
    expect(already).toMatchObject({ killed: true, stdout: "" });
  });

  test("a background process holding the pipes does not hold the call", async () => {
    const started = Date.now();
    const out = await runtime.runScript?.("sleep 60 & echo $!", { cwd: stateRoot, stdin: "", timeoutMs: 20_000, signal });
    // Held by the pipes, the call would last until the timeout (20 s).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out?.exitCode).toBe(0);
    const pid = Number(out?.stdout.trim());
    if (processAlive(pid)) process.kill(pid, "SIGKILL");
  });

  test("a missing cwd rejects with a clear error", async () => {
    await expect(runtime.runScript?.("true", { cwd: join(stateRoot, "nope"), stdin: "", timeoutMs: 5000, signal })).rejects.toThrow(
      /\[runtime\] cannot run the script/,
    );
  });
});

describe("runAgentTool", () => {
  const runtime = createLocalRuntime({ stateRoot });
  const options = (overrides: Partial<{ timeoutMs: number; signal: AbortSignal }> = {}) => ({
    cwd: stateRoot,
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    ...overrides,
  });
  const agentTool = (script: string): ToolDefinition => ({ description: "a", execution: "agent", script });

  test("JSON input on stdin, JSON stdout parsed", async () => {
    const def = agentTool(`printf '{"echo":'; cat; printf '}'`);
    expect(await runAgentTool(def, { city: "Oslo", n: [1, 2] }, runtime, options())).toEqual({
      isError: false,
      result: { echo: { city: "Oslo", n: [1, 2] } },
    });
  });

  test("input never reaches the command line", async () => {
    const marker = join(stateRoot, "injected");
    const input = { text: `$(touch ${marker}); \`touch ${marker}\`` };
    expect(await runAgentTool(agentTool("cat"), input, runtime, options())).toEqual({ isError: false, result: input });
    expect(existsSync(marker)).toBe(false);
  });

  test("non-JSON stdout is the trimmed text; a JSON envelope keeps its isError", async () => {
    expect(await runAgentTool(agentTool("echo '  plain words  '"), {}, runtime, options())).toEqual({ isError: false, result: "plain words" });
    const envelope = { content: [{ type: "text", text: "bad" }], isError: true };
    expect(await runAgentTool(agentTool(`echo '${JSON.stringify(envelope)}'`), {}, runtime, options())).toEqual({ isError: true, result: envelope });
  });

  test("a non-zero exit is an error with stderr, else stdout", async () => {
    expect(await runAgentTool(agentTool("echo out; echo oops >&2; exit 3"), {}, runtime, options())).toEqual({
      isError: true,
      result: { content: [{ type: "text", text: "the script exited with code 3: oops" }] },
    });
    expect(await runAgentTool(agentTool("echo only-out; exit 1"), {}, runtime, options())).toEqual({
      isError: true,
      result: { content: [{ type: "text", text: "the script exited with code 1: only-out" }] },
    });
  });

  test("a timeout is an error result", async () => {
    const outcome = await runAgentTool(agentTool("sleep 30"), {}, runtime, options({ timeoutMs: 200 }));
    expect(outcome).toEqual({ isError: true, result: { content: [{ type: "text", text: "the script timed out after 200 ms" }] } });
  });

  test("a runtime without runScript, or a tool without script, is a clear error", async () => {
    const noScripts: RuntimePort = { sessionWorkspace: async () => stateRoot, scratchWorkspace: runtime.scratchWorkspace };
    const outcome = await runAgentTool(agentTool("echo hi"), {}, noScripts, options());
    expect(outcome.isError).toBe(true);
    expect(JSON.stringify(outcome.result)).toMatch(/this runtime cannot run scripts/);
    const missing = await runAgentTool({ description: "a", execution: "agent" }, {}, runtime, options());
    expect(JSON.stringify(missing.result)).toMatch(/has no script/);
  });
});

describe("validateTools", () => {
  const ok: ToolDefinition = { description: "Does it", execute: () => "ok" };
  const codes = (tools: Record<string, unknown>) => validateTools(tools).map((d) => `${d.severity}:${d.code}`);

  test("a valid server tool and a valid agent tool have no diagnostics", () => {
    expect(validateTools({ weather: ok, "run-it_2": { description: "x", execution: "agent", script: "true" }, [`t${"x".repeat(63)}`]: ok })).toEqual([]);
  });

  test("names must be model-facing", () => {
    expect(codes({ "bad name": ok })).toEqual(["error:invalid_tool_name"]);
    expect(codes({ "a.b": ok })).toEqual(["error:invalid_tool_name"]);
    expect(codes({ [`t${"x".repeat(64)}`]: ok })).toEqual(["error:invalid_tool_name"]);
  });

  test("each rule yields its own diagnostic", () => {
    expect(codes({ t: { execute: () => 1 } })).toEqual(["error:missing_tool_description"]);
    expect(codes({ t: { description: "  ", execute: () => 1 } })).toEqual(["error:missing_tool_description"]);
    expect(codes({ t: { description: "x", execution: "agent" } })).toEqual(["error:missing_tool_script"]);
    expect(codes({ t: { description: "x" } })).toEqual(["error:missing_tool_execute"]);
    expect(codes({ t: { description: "x", execution: "agent", script: "true", needsApproval: true } })).toEqual(["warning:agent_tool_approval_ignored"]);
    expect(codes({ t: { description: "x", execution: "agent", script: "true", needsApproval: false } })).toEqual([]);
    expect(codes({ t: { description: "x", execution: "agent", script: "true", execute: () => 1 } })).toEqual(["warning:agent_tool_execute_ignored"]);
    expect(codes({ t: { description: "x", execution: "cloud", execute: () => 1 } })).toEqual(["error:invalid_tool_execution"]);
    expect(codes({ t: { description: "x", execute: () => 1, needsApproval: "yes" } })).toEqual(["error:invalid_tool_needs_approval"]);
    expect(codes({ t: { description: "x", execute: () => 1, inputSchema: "string" } })).toEqual(["error:invalid_tool_input_schema"]);
    const opaque = { "~standard": { version: 1, vendor: "x", validate: (value: unknown) => ({ value }) } };
    expect(codes({ t: { description: "x", execute: () => 1, inputSchema: opaque } })).toEqual(["warning:tool_schema_not_describable"]);
    expect(codes({ t: null, u: "text" })).toEqual(["error:invalid_tool", "error:invalid_tool"]);
  });

  test("diagnostics name the tool and carry its file", () => {
    expect(validateTools({ t: { description: "x" } }, { files: { t: "bot/tools/t.ts" } })).toEqual([
      { severity: "error", code: "missing_tool_execute", message: expect.stringMatching(/^tool t: /), file: "bot/tools/t.ts" },
    ]);
  });
});

describe("validateHooks", () => {
  test("events must be an object of functions", () => {
    expect(validateHooks({ ok: { events: { "*": () => {}, "turn.completed": () => {} } } })).toEqual([]);
    const found = validateHooks({ none: {}, list: { events: [] }, bad: { events: { "turn.completed": "no" } } }, { files: { bad: "bot/hooks/bad.ts" } });
    expect(found.map((d) => d.code)).toEqual(["invalid_hook", "invalid_hook", "invalid_hook_handler"]);
    expect(found[2]).toMatchObject({ severity: "error", file: "bot/hooks/bad.ts", message: expect.stringContaining("turn.completed") });
  });
});
