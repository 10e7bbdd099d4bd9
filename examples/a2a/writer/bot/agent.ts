import { defineAgent } from "agent-serve";

export default defineAgent({
  name: "Writer",
  // No harness tools (its own bot/tools/ask_researcher.ts stays), so no shell to warn about
  // (docs/design/faults.md "Safe defaults").
  tools: [],
});
