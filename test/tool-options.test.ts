/**
 * Tool options beyond the basics (docs/design/tools.md): `outputSchema` checks results, `effect`
 * and `dryRunResult` are shown in /v1/info, eval sessions dry-run write tools, and
 * `t.notCalledTool({ effect: "write" })` catches any write tool.
 */
import * as v from "valibot";
import { expect, it } from "vitest";
import { defineEval } from "../src/entries/evals.ts";
import type { EvalRunSnapshot } from "../src/entries/evals.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { describeHost, eventually, helloOptions, postJson, project } from "./_harness.ts";

const refunds: string[] = [];

const tools = {
  quote: defineTool({
    description: "Quotes a price",
    inputSchema: v.object({ sku: v.string() }),
    outputSchema: v.object({ sku: v.string(), price: v.number() }),
    effect: "read",
    execute: ({ sku }) => (sku === "broken" ? { sku, price: "free" } : { sku, price: 12 }),
  }),
  refund: defineTool({
    description: "Refunds an order",
    inputSchema: v.object({ orderId: v.string() }),
    effect: "write",
    dryRunResult: (input: unknown) => ({ refunded: false, dryRun: true, input }),
    execute: ({ orderId }) => {
      refunds.push(orderId);
      return { refunded: true };
    },
  }),
};

const evals = {
  refunds: defineEval({
    async test(t) {
      await t.send('/tool refund {"orderId":"E1"}');
      t.notCalledTool({ effect: "write" });
    },
  }),
  reads: defineEval({
    async test(t) {
      await t.send('/tool quote {"sku":"A"}');
      t.notCalledTool({ effect: "write" });
    },
  }),
};

const options = () =>
  helloOptions({ dev: true, agents: [{ slug: "hello", project: project({ tools, evals }), storage: createMemoryStorage() }] });

describeHost("tool options", options, (get) => {
  it("outputSchema: a matching result passes, a result that does not match is an error result", async () => {
    const ok = await (await get().fetch("/hello/v1/tools/quote", postJson({ input: { sku: "A" } }))).json();
    expect(ok).toMatchObject({ ok: true, isError: false, result: { sku: "A", price: 12 } });
    const bad = (await (await get().fetch("/hello/v1/tools/quote", postJson({ input: { sku: "broken" } }))).json()) as { isError: boolean; result: unknown };
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.result)).toMatch(/does not match its outputSchema: price: Invalid type/);
  });

  it("/v1/info shows effect, dry-run and the output schema", async () => {
    const info = (await (await get().fetch("/hello/v1/info")).json()) as { tools: Array<Record<string, unknown>> };
    const byName = Object.fromEntries(info.tools.map((tool) => [tool.name, tool]));
    expect(byName.quote).toMatchObject({ effect: "read", dryRun: false, outputSchema: { type: "object", required: ["sku", "price"] } });
    expect(byName.refund).toMatchObject({ effect: "write", dryRun: true });
  });

  it("outside evals a write tool runs; in an eval session it returns its dryRunResult and notCalledTool({effect}) sees it", async () => {
    refunds.length = 0;
    const direct = await (await get().fetch("/hello/v1/tools/refund", postJson({ input: { orderId: "D1" } }))).json();
    expect(direct).toMatchObject({ isError: false, result: { refunded: true } });
    expect(refunds).toEqual(["D1"]);
    const started = (await (await get().fetch("/hello/v1/dev/evals/runs", postJson({}))).json()) as EvalRunSnapshot;
    const run = await eventually(
      async () => {
        const snapshot = (await (await get().fetch(`/hello/v1/dev/evals/runs/${started.runId}`)).json()) as EvalRunSnapshot;
        return snapshot.status === "running" ? undefined : snapshot;
      },
      10_000,
      "the eval run",
    );
    expect(refunds).toEqual(["D1"]);
    const cases = Object.fromEntries(run.cases.map((c) => [c.id, c]));
    expect(cases.reads).toMatchObject({ status: "passed" });
    expect(cases.refunds).toMatchObject({ status: "failed", failures: [{ assertion: "notCalledTool", message: "expected no call to a write tool, but refund was called" }] });
  });
});
