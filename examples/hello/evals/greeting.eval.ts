import { defineEval, includes, satisfies } from "agent-serve/evals";

// `agent-serve eval examples/hello` runs this against the agent (offline: the scripted model).
export default defineEval({
  tags: ["smoke"],
  description: "Hello answers a greeting",
  async test(t) {
    const reply = await t.send("Hi, who are you?");
    t.succeeded();
    t.notCalledTool("shell");
    await t.check(reply, satisfies((text: string) => text.trim().length > 0, "a non-empty reply"));
    // The scripted model echoes; a real model would be checked for what it should say instead.
    await t.check(reply, includes(/who are you/i));
  },
});
