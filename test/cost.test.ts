import { beforeAll, describe, expect, it } from "vitest";
import { loadPriceCatalog, priceFor } from "../src/features/cost/prices.ts";
import { costOf, foldCostReport } from "../src/features/cost/report.ts";
import type { CostEvent } from "../src/features/cost/report.ts";

let index = 0;
const envelope = (type: string, turnId: string | undefined, data: unknown): CostEvent & { index: number; sessionId: string; at: string } => ({
  type,
  index: index++,
  sessionId: "s1",
  turnId,
  at: "2026-01-01T00:00:00.000Z",
  data,
});
const usage = (inputTokens: number, outputTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0) => ({
  inputTokens,
  outputTokens,
  cacheReadTokens,
  cacheWriteTokens,
});

beforeAll(loadPriceCatalog);

describe("priceFor", () => {
  it("knows scripted and current provider models, and nothing else", () => {
    expect(priceFor("scripted")).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(priceFor("openai/gpt-5-mini")?.output).toBe(2);
    expect(priceFor("anthropic/claude-sonnet-4-5")?.input).toBe(3);
    expect(priceFor("openai/unknown-model")).toBeUndefined();
    expect(priceFor("constructor")).toBeUndefined();
    // The catalog (@pydantic/genai-prices, offline) prices models no hand-kept table listed.
    expect(priceFor("openai/o3")).toMatchObject({ input: expect.any(Number), output: expect.any(Number) });
    expect(priceFor("anthropic/claude-3-5-haiku-latest")?.output).toBeGreaterThan(0);
    // A self-hosted server's "gpt-4o" is not OpenAI's: unpriced unless the agent sets prices.
    expect(priceFor("openai-compatible/gpt-4o")).toBeUndefined();
  });

  it("prices dated snapshots like their alias", () => {
    expect(priceFor("anthropic/claude-sonnet-4-5-20250929")).toEqual(priceFor("anthropic/claude-sonnet-4-5"));
    expect(priceFor("openai/gpt-4o-2024-08-06")).toEqual(priceFor("openai/gpt-4o"));
  });

  it("prefers overrides and lets them add models", () => {
    const overrides = { "openai/gpt-5-mini": { input: 1, output: 1 }, "openai-compatible/llama": { input: 0.1, output: 0.2 } };
    expect(priceFor("openai/gpt-5-mini", overrides)).toEqual({ input: 1, output: 1 });
    expect(priceFor("openai-compatible/llama", overrides)).toEqual({ input: 0.1, output: 0.2 });
    expect(priceFor("openai/gpt-5", overrides)).toEqual(priceFor("openai/gpt-5"));
  });
});

describe("costOf", () => {
  it("prices cache reads and writes at their own rates within inputTokens", () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    // 1000 uncached input, 400 read, 100 written, 200 output.
    expect(costOf(usage(1500, 200, 400, 100), price)).toBeCloseTo((1000 * 3 + 400 * 0.3 + 100 * 3.75 + 200 * 15) / 1e6, 12);
    // Without cache rates cached tokens cost the input rate.
    expect(costOf(usage(1000, 0, 500, 0), { input: 2, output: 8 })).toBeCloseTo(2000 / 1e6, 12);
  });
});

describe("foldCostReport", () => {
  it("folds priced, free and unpriced turns into per-turn rows and totals", () => {
    const events = [
      envelope("session.started", undefined, { mode: "chat", channel: "http" }),
      envelope("turn.started", "t1", {}),
      envelope("turn.completed", "t1", { usage: usage(1_000_000, 100_000), model: "openai/gpt-5-mini" }),
      envelope("turn.completed", "t2", { usage: usage(120, 30), model: "scripted" }),
      envelope("turn.completed", "t3", { usage: usage(10, 5), model: "openai-compatible/llama" }),
      envelope("turn.completed", "t4", { usage: usage(7, 3) }),
      envelope("turn.failed", "t5", { message: "boom" }),
    ];
    const report = foldCostReport("s1", events);
    expect(report).toEqual({
      sessionId: "s1",
      totals: { inputTokens: 1_000_137, outputTokens: 100_038, cacheReadTokens: 0, cacheWriteTokens: 0, estimatedCostUsd: 0.45, unpricedTurns: 2, unpricedSubagentRuns: 0 },
      turns: [
        { turnId: "t1", model: "openai/gpt-5-mini", usage: usage(1_000_000, 100_000), estimatedCostUsd: 0.45 },
        { turnId: "t2", model: "scripted", usage: usage(120, 30), estimatedCostUsd: 0 },
        { turnId: "t3", model: "openai-compatible/llama", usage: usage(10, 5), estimatedCostUsd: null },
        { turnId: "t4", model: null, usage: usage(7, 3), estimatedCostUsd: null },
      ],
      subagents: [],
    });
  });

  it("applies price overrides and rounds to 6 decimals", () => {
    const events = [
      envelope("turn.completed", "a", { usage: usage(1, 1), model: "openai-compatible/llama" }),
      envelope("turn.completed", "b", { usage: usage(333, 0), model: "openai-compatible/llama" }),
    ];
    const report = foldCostReport("s2", events, { "openai-compatible/llama": { input: 1, output: 2 } });
    expect(report.turns.map((turn) => turn.estimatedCostUsd)).toEqual([0.000003, 0.000333]);
    expect(report.totals.estimatedCostUsd).toBe(0.000336);
    expect(report.totals.unpricedTurns).toBe(0);
  });

  it("counts turns recorded without usage as unpriced with zero tokens", () => {
    const report = foldCostReport("s3", [envelope("turn.completed", "old", {}), envelope("turn.completed", "older", null)]);
    expect(report.totals).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, estimatedCostUsd: 0, unpricedTurns: 2, unpricedSubagentRuns: 0 });
    expect(report.turns.every((turn) => turn.estimatedCostUsd === null)).toBe(true);
  });

  it("is empty for a session without completed turns", () => {
    expect(foldCostReport("s4", [])).toEqual({
      sessionId: "s4",
      totals: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, estimatedCostUsd: 0, unpricedTurns: 0, unpricedSubagentRuns: 0 },
      turns: [],
      subagents: [],
    });
  });

  it("adds subagent runs, priced by their own model, to the totals; failed runs carry no usage", () => {
    const events = [
      envelope("turn.completed", "t1", { usage: usage(1_000_000, 0), model: "openai/gpt-5-mini" }),
      envelope("subagent.completed", "t1", { subagent: "researcher", isError: false, result: "x", usage: usage(0, 100_000), model: "openai/gpt-5-mini" }),
      envelope("subagent.completed", "t1", { subagent: "builder", isError: false, result: "y", usage: usage(10, 10), model: "openai-compatible/llama" }),
      envelope("subagent.completed", "t1", { subagent: "broken", isError: true, error: "boom" }),
    ];
    const report = foldCostReport("s5", events);
    expect(report.subagents).toEqual([
      { turnId: "t1", subagent: "researcher", model: "openai/gpt-5-mini", usage: usage(0, 100_000), estimatedCostUsd: 0.2 },
      { turnId: "t1", subagent: "builder", model: "openai-compatible/llama", usage: usage(10, 10), estimatedCostUsd: null },
    ]);
    expect(report.turns).toHaveLength(1);
    expect(report.totals).toEqual({
      inputTokens: 1_000_010,
      outputTokens: 100_010,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      estimatedCostUsd: 0.45,
      unpricedTurns: 0,
      unpricedSubagentRuns: 1,
    });
  });
});
