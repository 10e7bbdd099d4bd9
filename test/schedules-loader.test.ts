/**
 * Loading `bot/schedules/` (docs/guide/agent-projects.md "Layout"): markdown schedules with cron
 * frontmatter and
 * `defineSchedule` modules; invalid ones are error diagnostics and are left out.
 */
import { describe, expect, test } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import { createHost } from "../src/host/host.ts";
import { parseScheduleMarkdown } from "../src/features/schedules/markdown.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { quietLogger } from "./_harness.ts";
import { summarizeDiagnostics, tempProjects } from "./_temp-projects.ts";

// Outside the repository, so `agent-serve/schedules` resolves only through the loader's hooks.
const project = tempProjects("schedules-loader");
const summary = summarizeDiagnostics;

describe("loading schedules", () => {
  test("markdown and defineSchedule schedules; helpers are not schedules", async () => {
    const dir = project({
      "bot/schedules/digest.md": '---\ncron: "0 9 * * 1-5"   # weekdays\ncatchUp: true\n---\n\nSummarize yesterday.\n\nKeep it short.\n',
      "bot/schedules/sweep.ts": `
import { defineSchedule } from "agent-serve/schedules";
export default defineSchedule({ cron: "*/15 * * * *", async run({ receive }) { await receive("ops", { message: "sweep" }); } });
`,
      "bot/schedules/plain.mjs": `export default { cron: "@daily", markdown: "Daily." };\n`,
      "bot/schedules/_shared.ts": "export default 1;\n",
      "bot/schedules/README.txt": "not a schedule\n",
    });
    const loaded = await loadProject(dir);
    expect(summary(loaded.diagnostics)).toEqual([]);
    expect(Object.keys(loaded.schedules ?? {}).sort()).toEqual(["digest", "plain", "sweep"]);
    expect(loaded.schedules?.digest).toEqual({ cron: "0 9 * * 1-5", markdown: "Summarize yesterday.\n\nKeep it short.", catchUp: true });
    expect(typeof loaded.schedules?.sweep?.run).toBe("function");
  });

  test("every invalid schedule is an error diagnostic with its file, and is left out", async () => {
    const dir = project({
      "bot/schedules/no-front.md": "Just a prompt.\n",
      "bot/schedules/no-cron.md": "---\ntitle: x\n---\nPrompt\n",
      "bot/schedules/bad-cron.md": '---\ncron: "61 * * * *"\n---\nPrompt\n',
      "bot/schedules/six.md": '---\ncron: "0 0 9 * * *"\n---\nPrompt\n',
      "bot/schedules/empty.md": '---\ncron: "0 9 * * *"\n---\n\n',
      "bot/schedules/both.ts": `export default { cron: "0 9 * * *", markdown: "x", run() {} };\n`,
      "bot/schedules/neither.ts": `export default { cron: "0 9 * * *" };\n`,
      "bot/schedules/not-fn.ts": `export default { cron: "0 9 * * *", run: "nope" };\n`,
      "bot/schedules/throws.ts": `throw new Error("boom");\n`,
      "bot/schedules/twice.md": '---\ncron: "0 9 * * *"\n---\nA\n',
      "bot/schedules/twice.ts": `export default { cron: "0 9 * * *", markdown: "B" };\n`,
      "bot/schedules/bad name.md": '---\ncron: "0 9 * * *"\n---\nA\n',
      "bot/schedules/ok.md": '---\ncron: "0 9 * * *"\nowner: ops\n---\nFine.\n',
    });
    const loaded = await loadProject(dir);
    expect(summary(loaded.diagnostics)).toEqual([
      "error:duplicate_schedule:bot/schedules/twice.ts",
      "error:invalid_schedule:bot/schedules/both.ts",
      "error:invalid_schedule:bot/schedules/empty.md",
      "error:invalid_schedule:bot/schedules/neither.ts",
      "error:invalid_schedule:bot/schedules/not-fn.ts",
      "error:invalid_schedule_cron:bot/schedules/bad-cron.md",
      "error:invalid_schedule_cron:bot/schedules/six.md",
      "error:invalid_schedule_name:bot/schedules/bad name.md",
      "error:missing_schedule_cron:bot/schedules/no-cron.md",
      "error:missing_schedule_cron:bot/schedules/no-front.md",
      "error:schedule_import_failed:bot/schedules/throws.ts",
      "warning:unknown_schedule_key:bot/schedules/no-cron.md",
      "warning:unknown_schedule_key:bot/schedules/ok.md",
    ]);
    expect(Object.keys(loaded.schedules ?? {})).toEqual(["ok"]);
    const cron = loaded.diagnostics.find((d) => d.file === "bot/schedules/bad-cron.md");
    expect(cron?.message).toMatch(/^schedule bad-cron: invalid cron "61 \* \* \* \*": .*minute/);
    expect(loaded.diagnostics.find((d) => d.file === "bot/schedules/both.ts")?.message).toBe("schedule both: give exactly one of markdown or run, not both");
  });

  test("a loaded project's schedules fire through the host", async () => {
    const dir = project({ "bot/schedules/hello.md": '---\ncron: "* * * * *"\n---\n/reply hello from cron\n' });
    const loaded = await loadProject(dir);
    const t0 = Date.parse("2026-03-02T09:00:30.000Z");
    let now = t0;
    const host = createHost({ agents: [{ slug: "p", project: loaded, storage: createMemoryStorage() }], dev: true, logger: quietLogger, now: () => now });
    try {
      await host.ready();
      now = t0 + 60_000;
      const [report] = await host.tick();
      expect(report!.schedules).toEqual([{ scheduleId: "hello", slot: "2026-03-02T09:01:00.000Z", sessionIds: [expect.stringMatching(/^ses_/)] }]);
      const text = await (await host.request(`/p/v1/session/${report!.schedules[0]!.sessionIds[0]}/stream`)).text();
      expect(text).toContain('"text":"hello from cron"');
    } finally {
      await host.close();
    }
  });
});

describe("the frontmatter parser", () => {
  test("quoted and bare values, booleans, comments, CRLF", () => {
    expect(parseScheduleMarkdown("---\r\ncron: '0 9 * * *'\r\ncatchUp: false\r\n# note\r\n---\r\nBody\r\n")).toEqual({
      definition: { cron: "0 9 * * *", markdown: "Body", catchUp: false },
      problems: [],
    });
    expect(parseScheduleMarkdown("---\ncron: 0 9 * * * # nine\n---\nBody").definition).toEqual({ cron: "0 9 * * *", markdown: "Body" });
    expect(parseScheduleMarkdown("---\nnot a pair\ncron: x\n---\nB").problems.map((p) => p.code)).toEqual(["invalid_schedule_frontmatter"]);
  });
});
