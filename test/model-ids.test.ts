/**
 * Model ids as the Agent SDK writes them (docs/design/agent-sdk-compatibility.md): bare ids map by
 * prefix, `grok-*` goes to xAI with its params, unknown ids warn and run on the scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "srvx";
import type { Server } from "srvx";
import { createAiSdkModel } from "../src/engine/model/ai-sdk.ts";
import { effectiveModel, missingModelSetup, modelIdWarning, routeModelId } from "../src/engine/model/resolve.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { project, quietLogger } from "./_harness.ts";

describe("bare model ids", () => {
  it("map gpt-*, o<digit>*, claude-* and grok-* to their provider; others are unknown", () => {
    expect(routeModelId("gpt-5")).toEqual({ provider: "openai", modelId: "gpt-5", mapped: true });
    expect(routeModelId("o3-mini")).toMatchObject({ provider: "openai" });
    expect(routeModelId("claude-sonnet-4-5")).toMatchObject({ provider: "anthropic" });
    expect(routeModelId("grok-4.5")).toEqual({ provider: "xai", modelId: "grok-4.5", mapped: true });
    expect(routeModelId("xai/grok-4-fast")).toEqual({ provider: "xai", modelId: "grok-4-fast", mapped: false });
    expect(routeModelId("composer-1")).toBeUndefined();
    expect(routeModelId("omni")).toBeUndefined();
    expect(modelIdWarning("composer-1")).toMatch(/not one this host can call.*scripted model/);
    expect(modelIdWarning("grok-4.5")).toBeUndefined();
  });

  it("run on the scripted model, saying why, when no credential or provider fits", () => {
    const params = { effort: "high", fast: "true" };
    expect(effectiveModel({ id: "grok-4.5", params })).toEqual({
      spec: { id: "scripted", params },
      notice: expect.stringMatching(/grok-4\.5.*xai credential \(XAI_API_KEY.*offline scripted model/),
    });
    expect(effectiveModel({ id: "grok-4.5", params }, { credentials: { xai: "k" } })).toEqual({ spec: { id: "xai/grok-4.5", params } });
    expect(effectiveModel({ id: "composer-1", params: {} }).notice).toMatch(/composer-1/);
    // An id written with its provider is taken at its word: turns fail until the credential is set.
    expect(effectiveModel({ id: "openai/gpt-5", params: {} })).toEqual({ spec: { id: "openai/gpt-5", params: {} } });
    expect(missingModelSetup({ id: "openai/gpt-5", params: {} })).toMatch(/OPENAI_API_KEY/);
    expect(missingModelSetup({ id: "openai-compatible/llama", params: {} })).toMatch(/AGENT_SERVE_OPENAI_BASE_URL/);
    expect(missingModelSetup({ id: "grok-4.5", params: {} })).toBeUndefined();
  });

  it("a host with grok-4.5 and no credential answers offline and says so in /v1/info", async () => {
    const host = createHost({
      agents: [
        {
          slug: "sdk",
          project: project({ agent: { model: { id: "grok-4.5", params: [{ id: "effort", value: "high" }, { id: "fast", value: "true" }] } } }),
          storage: createMemoryStorage(),
        },
      ],
      logger: quietLogger,
      drainTimeoutMs: 50,
    });
    try {
      const info = (await (await host.request("/sdk/v1/info")).json()) as { model: { id: string; notice?: string }; diagnostics: Array<{ code: string }> };
      expect(info.model.id).toBe("scripted");
      expect(info.model.notice).toMatch(/grok-4\.5/);
      expect(info.diagnostics.map((d) => d.code)).toContain("scripted_model_fallback");
      const created = (await (
        await host.request("/sdk/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "/reply offline" }) })
      ).json()) as { sessionId: string };
      const events = await host.request(`/sdk/v1/session/${created.sessionId}/stream`);
      expect(await readUntil(events, "session.waiting")).toContain('"text":"offline"');
    } finally {
      await host.close();
    }
  });
});

describe("xAI through @ai-sdk/xai", () => {
  const bodies: Array<{ path: string; authorization: string | null; body: Record<string, unknown> }> = [];
  let server: Server;
  beforeAll(async () => {
    server = serve({
      port: 0,
      hostname: "127.0.0.1",
      silent: true,
      gracefulShutdown: false,
      async fetch(request) {
        bodies.push({ path: new URL(request.url).pathname, authorization: request.headers.get("authorization"), body: (await request.json()) as Record<string, unknown> });
        return Response.json({ error: { message: "no such model here", type: "invalid_request_error" } }, { status: 400 });
      },
    });
    await server.ready();
  });
  afterAll(() => server.close(true));

  it("sends effort as reasoning effort and fast as the priority tier", async () => {
    const model = createAiSdkModel({
      provider: "xai",
      modelId: "grok-4.5",
      apiKey: "xai-test",
      baseURL: `${server.url!.replace(/\/$/, "")}/v1`,
      params: { effort: "high", fast: "true" },
      maxRetries: 0,
    });
    const stream = model.stream({ system: "sys", messages: [{ role: "user", content: "hi" }], tools: [], signal: new AbortController().signal, params: {} });
    await expect(async () => {
      for await (const _part of stream) {
        // drain
      }
    }).rejects.toThrow(/xai\/grok-4\.5: .*no such model here.*HTTP 400/);
    const sent = bodies.at(-1)!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.authorization).toBe("Bearer xai-test");
    expect(sent.body).toMatchObject({ model: "grok-4.5", reasoning: { effort: "high" }, service_tier: "priority" });
  });
});

/** Reads an NDJSON stream until a line of `type` arrives, then cancels it. */
async function readUntil(response: Response, type: string): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes(`"type":"${type}"`)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return text;
}
