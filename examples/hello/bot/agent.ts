import { defineAgent } from "agent-serve";

export default defineAgent({
  name: "Hello",
  // No model: with no credential configured the host serves the offline scripted model.
  // The harness tools that only look at the session's workspace: `shell` is left out, so the model
  // runs no commands and `serve` has nothing to warn about (docs/design/faults.md "Safe defaults").
  // examples/workspace shows `shell` with the sandbox.
  tools: ["read", "grep", "glob", "ls"],
});
