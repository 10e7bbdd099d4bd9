/**
 * The approval tests' `danger` tool: it always needs approval, and every run is recorded, so a
 * test can tell a call that ran from one that was only decided. Each test starts with no runs.
 */
import * as v from "valibot";
import { beforeEach } from "vitest";
import { defineTool } from "../src/entries/tools.ts";

export function dangerTool(description: string) {
  const runs: string[] = [];
  beforeEach(() => {
    runs.splice(0);
  });
  const tools = {
    danger: defineTool({
      description,
      inputSchema: v.object({ what: v.string() }),
      needsApproval: true,
      execute(input) {
        runs.push(input.what);
        return `deleted ${input.what}`;
      },
    }),
  };
  return { tools, runs };
}
