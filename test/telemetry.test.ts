/**
 * OpenTelemetry (docs/design/telemetry.md): with OTEL_EXPORTER_OTLP_ENDPOINT set, a served turn
 * exports a span per turn, step, model call and tool call over OTLP/HTTP, and `ctx.host.otel`
 * counters are exported too. Received here by a loopback OTLP/HTTP endpoint decoding the JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "srvx";
import type { Server } from "srvx";
import { startTelemetry } from "../loader/telemetry.ts";
import { cliEnv, runCli } from "./_cli.ts";
import { tempProjects } from "./_temp-projects.ts";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: OtlpAttribute[];
  status?: { code?: number };
}

const project = tempProjects("otel");
const posts: Array<{ path: string; type: string | null; body: Record<string, unknown> }> = [];
let collector: Server;

beforeAll(async () => {
  collector = serve({
    port: 0,
    hostname: "127.0.0.1",
    silent: true,
    gracefulShutdown: false,
    async fetch(request) {
      posts.push({ path: new URL(request.url).pathname, type: request.headers.get("content-type"), body: (await request.json()) as Record<string, unknown> });
      return Response.json({});
    },
  });
  await collector.ready();
});
afterAll(() => collector.close(true));

const plain = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? value.arrayValue?.values.map(plain)));
const attrs = (list: OtlpAttribute[] = []): Record<string, unknown> => Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

describe("OpenTelemetry export", () => {
  it("does nothing without the OTLP environment", () => {
    expect(startTelemetry({})).toBeUndefined();
    expect(startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_SDK_DISABLED: "true" })).toBeUndefined();
  });

  it("exports turn, step, model-call and tool-call spans and host.otel counters over OTLP/HTTP", async () => {
    const dir = project({
      "bot/tools/ping.ts": `export default { description: "Pings", async execute(_input, ctx) { ctx.host.otel.increment("pings", 2, { kind: "test" }); return "pong"; } };\n`,
    });
    const env = cliEnv(`${dir}/config`, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url!.replace(/\/$/, ""), OTEL_SERVICE_NAME: "otel-test" });
    const result = await runCli(["run", dir, "--message", "/tool ping {}\n/reply done"], env);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("done");

    const traces = posts.filter((post) => post.path === "/v1/traces");
    expect(traces.length).toBeGreaterThan(0);
    expect(traces[0]!.type).toContain("application/json");
    const resourceSpans = traces.flatMap((post) => post.body.resourceSpans as Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>);
    expect(attrs(resourceSpans[0]!.resource.attributes)).toMatchObject({ "service.name": "otel-test" });
    const spans = resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const byName = (name: string): OtlpSpan[] => spans.filter((span) => span.name === name);

    const [turn] = byName(`invoke_agent p1`);
    expect(turn).toBeDefined();
    expect(attrs(turn!.attributes)).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "agent_serve.session.id": expect.stringMatching(/^ses_/),
      "agent_serve.turn.id": expect.any(String),
      "agent_serve.channel": "http",
      "gen_ai.usage.input_tokens": expect.any(Number),
      "gen_ai.usage.output_tokens": expect.any(Number),
      "agent_serve.turn.steps": 2,
    });
    const steps = [...byName("step 0"), ...byName("step 1")];
    expect(steps).toHaveLength(2);
    for (const step of steps) expect(step.parentSpanId).toBe(turn!.spanId);
    const calls = byName("chat scripted");
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => call.parentSpanId).sort()).toEqual(steps.map((step) => step.spanId).sort());
    expect(attrs(calls[0]!.attributes)).toMatchObject({ "gen_ai.request.model": "scripted", "gen_ai.usage.input_tokens": expect.any(Number) });
    const [tool] = byName("execute_tool ping");
    expect(tool!.parentSpanId).toBe(byName("step 0")[0]!.spanId);
    expect(attrs(tool!.attributes)).toMatchObject({ "gen_ai.tool.name": "ping", "gen_ai.tool.call.id": expect.any(String), "agent_serve.tool.is_error": false });
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);

    const metricPosts = posts.filter((post) => post.path === "/v1/metrics");
    const points = JSON.stringify(metricPosts.map((post) => post.body));
    expect(points).toContain('"name":"pings"');
    expect(points).toMatch(/"asDouble":2|"asInt":"?2"?/);
    expect(points).toContain('"key":"kind","value":{"stringValue":"test"}');
  });
});
