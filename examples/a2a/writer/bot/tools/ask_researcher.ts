/**
 * The writer calls the researcher over A2A (docs/guide/a2a.md "Calling another agent").
 * `agent-serve serve examples/a2a` mounts both agents on one server, the researcher at
 * http://127.0.0.1:3000/researcher; `RESEARCHER_URL` points the tool at any other A2A agent.
 */
import { a2aAgent } from "agent-serve/tools";

export default a2aAgent({
  url: process.env["RESEARCHER_URL"] ?? "http://127.0.0.1:3000/researcher",
  description: "Ask the research agent a question; pass the contextId of its last answer to follow up on it",
});
