import { defineAgent } from "agent-serve";

export default defineAgent({
  name: "Researcher",
  // No harness tools: it answers from what it knows, and `serve` has no shell to warn about
  // (docs/design/faults.md "Safe defaults").
  tools: [],
});
