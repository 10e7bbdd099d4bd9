/**
 * Eval definitions: ids from paths, array naming, cases and iterations, validation, filters,
 * matchers and the partial match of `calledTool`, and loading `evals/` from a project on disk.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { loadProject } from "../loader/load-project.ts";
import { buildCatalog, evalIdFromPath, exportedEvals, selectCases } from "../src/features/evals/catalog.ts";
import { defineEval, defineEvalConfig, includes, matches, satisfies } from "../src/entries/evals.ts";
import type { EvalDefinition } from "../src/entries/evals.ts";
import { partialMatch } from "../src/features/evals/partial-match.ts";
import { validateEval, validateEvalConfig } from "../src/features/evals/validate.ts";
import { writeFiles } from "./_cli-io.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-evals-define-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const noop = (): void => {};

describe("eval ids", () => {
  it("come from the path below evals/", () => {
    expect(evalIdFromPath("readiness.eval.ts")).toBe("readiness");
    expect(evalIdFromPath("builds/api.eval.ts")).toBe("builds/api");
    expect(evalIdFromPath("builds/index.eval.ts")).toBe("builds");
    expect(evalIdFromPath("deep/er/x.eval.mjs")).toBe("deep/er/x");
    expect(evalIdFromPath("index.eval.js")).toBe("index");
  });

  it("name the entries of an exported array with zero-padded indexes", () => {
    const entries = exportedEvals("sql", [defineEval({ test: noop }), defineEval({ test: noop })]);
    expect(entries.map(([id]) => id)).toEqual(["sql/0000", "sql/0001"]);
    expect(exportedEvals("one", { test: noop }).map(([id]) => id)).toEqual(["one"]);
    const big = exportedEvals("big", Array.from({ length: 10_001 }, () => ({ test: noop })));
    expect([big[0]?.[0], big.at(-1)?.[0]]).toEqual(["big/00000", "big/10000"]);
  });

  it("cases append their id, iterations a #n suffix, and descriptions fall back to the eval's", () => {
    const catalog = buildCatalog({
      prs: defineEval({ tags: ["smoke"], description: "PR flows", cases: [{ id: "checkout", description: "pays", test: noop }, { id: "refund", test: noop }] }),
      flaky: defineEval({ iterations: 3, timeoutMs: 500, test: noop }),
    });
    expect(catalog.diagnostics).toEqual([]);
    expect(catalog.evals).toEqual([
      { id: "flaky", tags: [], description: null },
      { id: "prs/checkout", tags: ["smoke"], description: "pays" },
      { id: "prs/refund", tags: ["smoke"], description: "PR flows" },
    ]);
    expect(catalog.cases.map((c) => [c.id, c.baseId, c.timeoutMs])).toEqual([
      ["flaky#1", "flaky", 500],
      ["flaky#2", "flaky", 500],
      ["flaky#3", "flaky", 500],
      ["prs/checkout", "prs/checkout", undefined],
      ["prs/refund", "prs/refund", undefined],
    ]);
  });

  it("an id defined twice through cases is an error and the later eval is left out", () => {
    const catalog = buildCatalog(
      { prs: defineEval({ cases: [{ id: "checkout", test: noop }] }), "prs/checkout": defineEval({ test: noop }) },
      { prs: "evals/prs.eval.ts", "prs/checkout": "evals/prs/checkout.eval.ts" },
    );
    expect(catalog.cases.map((c) => c.id)).toEqual(["prs/checkout"]);
    expect(catalog.diagnostics).toEqual([
      {
        severity: "error",
        code: "duplicate_eval",
        message: "eval id prs/checkout is defined twice: by eval prs and by eval prs/checkout",
        file: "evals/prs/checkout.eval.ts",
      },
    ]);
  });
});

describe("validation", () => {
  const messages = (definition: unknown): string[] => validateEval(definition, "x").map((d) => `${d.code}: ${d.message}`);

  it("needs exactly one of test and cases", () => {
    expect(messages({ test: noop })).toEqual([]);
    expect(messages({ cases: [{ id: "a", test: noop }] })).toEqual([]);
    expect(messages({ test: noop, cases: [{ id: "a", test: noop }] })).toEqual(["invalid_eval: eval x: has both test and cases; keep one of them"]);
    expect(messages({ tags: ["a"] })).toEqual(["invalid_eval: eval x: needs test or cases"]);
    expect(messages("nope")).toEqual(["invalid_eval: eval x: must be defineEval({...}) (an object), or an array of them"]);
    expect(messages({ test: "not a function" })).toEqual(["invalid_eval: eval x: test must be a function (t) => ..."]);
  });

  it("checks cases, tags, iterations and time limits", () => {
    expect(messages({ cases: [] })).toEqual(["invalid_eval: eval x: cases must be a non-empty array of {id, test}"]);
    expect(messages({ cases: [{ id: "a/b", test: noop }] })).toEqual([
      'invalid_eval: eval x: cases[0].id must be one path segment (letters, digits, _ - .), got "a/b"',
    ]);
    expect(messages({ cases: [{ id: "a", test: noop }, { id: "a", test: noop }] })).toEqual(["duplicate_eval: eval x: case id a is used twice"]);
    expect(messages({ cases: [{ id: "a", test: noop, timeoutMs: 0 }] })).toEqual([
      "invalid_eval: eval x: case a: timeoutMs must be an integer from 1 to 86400000",
    ]);
    expect(messages({ test: noop, tags: ["ok", ""], iterations: 0, timeoutMs: 1.5, description: 3 })).toEqual([
      "invalid_eval: eval x: tags must be an array of non-empty strings",
      "invalid_eval: eval x: description must be a string",
      "invalid_eval: eval x: iterations must be an integer from 1 to 1000",
      "invalid_eval: eval x: timeoutMs must be an integer from 1 to 86400000",
    ]);
  });

  it("bounds maxConcurrency to 1..200", () => {
    const codes = (config: unknown): string[] => validateEvalConfig(config).map((d) => d.message);
    expect(codes(defineEvalConfig({ maxConcurrency: 1 }))).toEqual([]);
    expect(codes(defineEvalConfig({ maxConcurrency: 200, timeoutMs: 1000 }))).toEqual([]);
    expect(codes({ maxConcurrency: 0 })).toEqual(["maxConcurrency must be an integer from 1 to 200, got 0"]);
    expect(codes({ maxConcurrency: 201 })).toEqual(["maxConcurrency must be an integer from 1 to 200, got 201"]);
    expect(codes({ maxConcurrency: 2.5 })).toEqual(["maxConcurrency must be an integer from 1 to 200, got 2.5"]);
    expect(codes({ timeoutMs: -1 })).toEqual(["timeoutMs must be an integer from 1 to 86400000, got -1"]);
    expect(codes([])).toEqual(["the eval config must be defineEvalConfig({...}) (an object)"]);
  });
});

describe("filters", () => {
  const { cases } = buildCatalog({
    a: defineEval({ tags: ["smoke"], test: noop }),
    b: defineEval({ tags: ["slow"], cases: [{ id: "one", test: noop }, { id: "two", test: noop }] }),
    c: defineEval({ tags: ["smoke", "slow"], iterations: 2, test: noop }),
  });
  const ids = (filter: Parameters<typeof selectCases>[1]): string[] => selectCases(cases, filter).map((c) => c.id);

  it("OR within filterIds and within tags, AND across them", () => {
    expect(ids({})).toEqual(["a", "b/one", "b/two", "c#1", "c#2"]);
    expect(ids({ filterIds: ["a", "b/two"] })).toEqual(["a", "b/two"]);
    expect(ids({ filterIds: ["b"] })).toEqual(["b/one", "b/two"]);
    expect(ids({ tags: ["smoke"] })).toEqual(["a", "c#1", "c#2"]);
    expect(ids({ tags: ["smoke", "slow"] })).toEqual(["a", "b/one", "b/two", "c#1", "c#2"]);
    expect(ids({ filterIds: ["a", "b"], tags: ["slow"] })).toEqual(["b/one", "b/two"]);
    expect(ids({ filterIds: ["c#2"] })).toEqual(["c#2"]);
    expect(ids({ filterIds: ["b/on"] })).toEqual([]);
    expect(ids({ filterIds: [], tags: [] })).toHaveLength(5);
  });
});

describe("matchers", () => {
  it("includes: substrings, patterns and array elements", async () => {
    expect(await includes("lo w").test("hello world")).toEqual({ pass: true });
    expect(await includes("bye").test("hello")).toEqual({ pass: false, message: 'expected "hello" to match includes("bye")' });
    const global = /o/g;
    expect(await includes(global).test("foo")).toEqual({ pass: true });
    expect(await includes(global).test("foo")).toEqual({ pass: true });
    expect(global.lastIndex).toBe(0);
    expect(await includes("b").test(["a", "b"])).toEqual({ pass: true });
    expect(await includes(/^z/).test(["a", "b"])).toEqual({ pass: false, message: 'no element of ["a","b"] matches includes(/^z/)' });
    expect(await includes("1").test(1)).toEqual({ pass: false, message: 'includes("1") needs a string or an array, got 1' });
  });

  it("matches: any Standard Schema (valibot, zod)", async () => {
    const schema = v.object({ total: v.number() });
    expect(await matches(schema).test({ total: 3 })).toEqual({ pass: true });
    expect(await matches(schema).test({ total: "3" })).toEqual({
      pass: false,
      message: '{"total":"3"} does not match the schema at total: Invalid type: Expected number but received "3"',
    });
    expect((await matches(z.object({ ok: z.literal(true) })).test({ ok: true })).pass).toBe(true);
    expect((await matches(z.object({ ok: z.literal(true) })).test({ ok: false })).pass).toBe(false);
    expect(matches(schema).label).toBe("matches(valibot schema)");
  });

  it("satisfies: sync and async predicates, a throw is a failure", async () => {
    expect(await satisfies((n: number) => n > 2, "above two").test(3)).toEqual({ pass: true });
    expect(await satisfies(async (n: number) => n > 2, "above two").test(1)).toEqual({ pass: false, message: "expected 1 to be above two" });
    const throwing = satisfies(() => {
      throw new Error("nope");
    }, "sane");
    expect(await throwing.test(0)).toEqual({ pass: false, message: "sane threw: nope" });
  });

  it("partialMatch: named keys recursively, arrays element by element", () => {
    expect(partialMatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toBe(true);
    expect(partialMatch({ a: 1 }, { a: 2 })).toBe(false);
    expect(partialMatch({ a: 1 }, { b: undefined })).toBe(false);
    expect(partialMatch({ list: [{ x: 1, y: 2 }] }, { list: [{ x: 1 }] })).toBe(true);
    expect(partialMatch({ list: [1, 2] }, { list: [1] })).toBe(false);
    expect(partialMatch("A1", "A1")).toBe(true);
    expect(partialMatch(null, {})).toBe(false);
    expect(partialMatch(Number.NaN, Number.NaN)).toBe(true);
  });
});

describe("loading evals/ from a project", () => {
  const dir = writeFiles(join(scratch, "proj"), {
    "package.json": JSON.stringify({ name: "proj", type: "module" }),
    "bot/instructions.md": "Test.\n",
    "evals/evals.config.ts": `import { defineEvalConfig } from "agent-serve/evals";\nexport default defineEvalConfig({ maxConcurrency: 7, timeoutMs: 9000 });\n`,
    "evals/readiness.eval.ts": `import { defineEval } from "agent-serve/evals";\nexport default defineEval({ tags: ["smoke"], test: async () => {} });\n`,
    "evals/builds/index.eval.ts": `import { defineEval } from "@cursor/bdk/evals";\nexport default defineEval({ test: async () => {} });\n`,
    "evals/builds/api.eval.ts": `export default { cases: [{ id: "get", test() {} }, { id: "post", test() {} }] };\n`,
    "evals/sql.eval.ts": `import { defineEval } from "agent-serve/evals";\nexport default [1, 2].map((n) => defineEval({ description: "query " + n, test() {} }));\n`,
    "evals/dup.eval.ts": `export default { test() {} };\n`,
    "evals/dup/index.eval.ts": `export default { test() {} };\n`,
    "evals/both.eval.ts": `export default { test() {}, cases: [{ id: "a", test() {} }] };\n`,
    "evals/broken.eval.ts": `export default {;\n`,
    "evals/_helper.ts": `throw new Error("helpers are not loaded");\n`,
    "evals/notes.ts": `throw new Error("only *.eval.ts files are loaded");\n`,
  });

  it("loads valid evals by id and the config, and reports the rest", async () => {
    const project = await loadProject(dir);
    expect(Object.keys(project.evals ?? {}).sort()).toEqual(["builds", "builds/api", "dup", "readiness", "sql/0000", "sql/0001"]);
    expect(project.evalConfig).toEqual({ maxConcurrency: 7, timeoutMs: 9000 });
    const evalDiagnostics = project.diagnostics.filter((d) => d.file?.startsWith("evals/"));
    expect(evalDiagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
      ["error", "invalid_eval", "evals/both.eval.ts"],
      ["error", "eval_import_failed", "evals/broken.eval.ts"],
      ["error", "duplicate_eval", "evals/dup/index.eval.ts"],
    ]);
    expect(evalDiagnostics[2]?.message).toBe("eval dup is defined twice: evals/dup.eval.ts and evals/dup/index.eval.ts");
    const catalog = buildCatalog(project.evals as Record<string, EvalDefinition>);
    expect(catalog.evals.map((e) => e.id)).toEqual(["builds", "builds/api/get", "builds/api/post", "dup", "readiness", "sql/0000", "sql/0001"]);
    expect(catalog.evals.find((e) => e.id === "sql/0001")?.description).toBe("query 2");
  });

  it("an invalid config is an error and is left out", async () => {
    const bad = writeFiles(join(scratch, "bad-config"), {
      "bot/instructions.md": "Test.\n",
      "evals/evals.config.ts": `export default { maxConcurrency: 500 };\n`,
    });
    const project = await loadProject(bad);
    expect(project.evalConfig).toBeUndefined();
    expect(project.evals).toBeUndefined();
    expect(project.diagnostics).toContainEqual({
      severity: "error",
      code: "invalid_eval_config",
      message: "maxConcurrency must be an integer from 1 to 200, got 500",
      file: "evals/evals.config.ts",
    });
  });

  it("a project without evals/ has none", async () => {
    const plain = writeFiles(join(scratch, "plain"), { "bot/instructions.md": "Test.\n" });
    const project = await loadProject(plain);
    expect(project.evals).toBeUndefined();
    expect(project.evalConfig).toBeUndefined();
  });
});
