import { defineAgent } from "agent-serve";

export default defineAgent({
  name: "Workspace",
  // No `tools` list: every harness tool, `shell` included. The sandbox runs `shell` commands under
  // bubblewrap, confined to the session's workspace with no network; where bubblewrap does not work
  // they are refused, never run unconfined (docs/design/local-runtime.md "Sandbox", README.md here).
  local: { sandbox: true },
});
