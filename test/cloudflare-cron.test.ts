/**
 * Cron triggers for a Cloudflare build (docs/guide/cloudflare.md "Schedules and cron triggers"):
 * expressions Workers reads the same way become their own triggers, days of the week as names;
 * anything else, or too many, becomes one per-minute trigger and the host decides.
 */
import { describe, expect, test } from "vitest";
import { EVERY_MINUTE, MAX_TRIGGERS, cronTriggers, toWorkersCron } from "../cli/cloudflare/cron-triggers.ts";
import { compileCron } from "../src/base/cron.ts";

/** The minutes `expression` fires in, over two weeks from a Monday, by the host's own cron rules. */
function firings(expression: string): number[] {
  const schedule = compileCron(expression);
  const times: number[] = [];
  const end = Date.UTC(2026, 10, 30);
  for (let at = schedule.next(Date.UTC(2026, 10, 16) - 1); at !== null && at < end; at = schedule.next(at)) times.push(at);
  return times;
}

describe("toWorkersCron", () => {
  test.each([
    ["0 9 * * 1-5", "0 9 * * MON-FRI"],
    ["*/15 * * * *", "*/15 * * * *"],
    ["0 0 * * 0,6", "0 0 * * SUN,SAT"],
    ["0 0 * * 7", "0 0 * * SUN"],
    ["30 8 * * */2", "30 8 * * SUN,TUE,THU,SAT"],
    ["0 12 1,15 * *", "0 12 1,15 * *"],
    ["5 4 * 1-3 0-6", "5 4 * 1-3 SUN-SAT"],
  ])("%s becomes %s, firing in the same minutes", (expression, expected) => {
    const converted = toWorkersCron(expression);
    expect(converted).toBe(expected);
    // The names mean the same days: the host's cron reads both forms, and they fire together.
    expect(firings(converted!)).toEqual(firings(expression));
  });

  test.each([["0 9 1 * 1"], ["0 9 L * *"], ["0 0 * * 5/2"], ["0 0 * * MON"], ["0 0 0 * * *"]])("%s has no certain Workers form", (expression) => {
    expect(toWorkersCron(expression)).toBeUndefined();
  });
});

describe("cronTriggers", () => {
  test("one trigger per distinct cron, sorted; none without schedules", () => {
    const schedules = { a: { cron: "0 9 * * 1-5", markdown: "a" }, b: { cron: "0 3 * * *", markdown: "b" } };
    expect(cronTriggers([{ slug: "x", schedules }, { slug: "y", schedules: { c: { cron: "0 3 * * *", markdown: "c" } } }])).toEqual({
      crons: ["0 3 * * *", "0 9 * * MON-FRI"],
      diagnostics: [],
    });
    expect(cronTriggers([{ slug: "x" }])).toEqual({ crons: [], diagnostics: [] });
  });

  test("a schedule without a certain form makes the one trigger per-minute, and says which", () => {
    const result = cronTriggers([{ slug: "x", schedules: { both: { cron: "0 9 1 * 1", markdown: "m" }, daily: { cron: "0 3 * * *", markdown: "d" } } }]);
    expect(result.crons).toEqual([EVERY_MINUTE]);
    expect(result.diagnostics).toEqual([expect.objectContaining({ severity: "info", code: "cron_every_minute", message: expect.stringMatching(/^x: schedule both/) })]);
  });

  test(`more than ${MAX_TRIGGERS} distinct crons fold into the per-minute trigger`, () => {
    const schedules = Object.fromEntries(Array.from({ length: MAX_TRIGGERS + 1 }, (_, i) => [`s${i}`, { cron: `${i} 1 * * *`, markdown: "m" }]));
    const result = cronTriggers([{ slug: "x", schedules }]);
    expect(result.crons).toEqual([EVERY_MINUTE]);
    expect(result.diagnostics[0]?.message).toMatch(new RegExp(`${MAX_TRIGGERS + 1} distinct schedule crons`));
  });
});
