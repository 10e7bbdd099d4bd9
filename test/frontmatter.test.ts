/**
 * The one frontmatter parser, on `yaml`: skills and markdown schedules read real YAML
 * (quoted, folded and block values, comments), and a broken block is a clear problem.
 */
import { describe, expect, it } from "vitest";
import { parseFrontmatter as skillFrontmatter } from "../loader/harness/frontmatter.ts";
import { parseFrontmatter } from "../src/engine/project/frontmatter.ts";
import { parseScheduleMarkdown } from "../src/features/schedules/markdown.ts";

describe("frontmatter", () => {
  it("reads YAML: folded and block scalars, quotes, comments, booleans", () => {
    const parsed = parseFrontmatter("---\nname: refunds # the skill\ndescription: >\n  Handles refunds\n  and returns.\nsteps: |\n  one\n  two\nenabled: true\n---\n# Body\n");
    expect(parsed).toEqual({
      data: { name: "refunds", description: "Handles refunds and returns.\n", steps: "one\ntwo\n", enabled: true },
      body: "# Body\n",
      present: true,
    });
    expect(parseFrontmatter("no block\n")).toEqual({ data: {}, body: "no block\n", present: false });
    expect(parseFrontmatter("---\n- a list\n---\nx").error).toBe("the frontmatter must be `key: value` lines (a YAML mapping)");
  });

  it("skills get their text fields", () => {
    expect(skillFrontmatter("---\ndescription: |\n  Multi\n  line\nversion: 2\nnested: {a: 1}\n---\nbody").fields).toEqual({ description: "Multi\nline", version: "2" });
  });

  it("a schedule whose cron starts with * gets a hint to quote it", () => {
    const { problems } = parseScheduleMarkdown("---\ncron: */5 * * * *\n---\nPing");
    expect(problems).toEqual([{ severity: "error", code: "invalid_schedule_frontmatter", message: expect.stringContaining('quote values that start with "*", e.g. cron: "*/5 * * * *"') }]);
    expect(parseScheduleMarkdown('---\ncron: "*/5 * * * *"\n---\nPing').definition).toEqual({ cron: "*/5 * * * *", markdown: "Ping" });
  });
});
