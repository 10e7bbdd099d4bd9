/** `init`: the scaffolded project is served by a spawned `serve` and answers with the scripted model. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { run, scratchDir } from "./_cli-io.ts";
import { eventually } from "./_harness.ts";

const { dir: scratch, env } = scratchDir("cli-init");
const running: CliProcess[] = killAfterEach();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("init", () => {
  it("scaffolds a project that serve accepts and answers", async () => {
    const result = await run(["init", "my-agent"], { env, cwd: scratch });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("created my-agent (template basic)");
    const dir = join(scratch, "my-agent");
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; type: string };
    expect(pkg).toMatchObject({ name: "my-agent", type: "module" });
    expect(readFileSync(join(dir, "bot/agent.ts"), "utf8")).toContain('import { defineAgent } from "agent-serve";');
    expect(readFileSync(join(dir, "bot/instructions.md"), "utf8")).toMatch(/\S/);
    expect(readFileSync(join(dir, ".gitignore"), "utf8").split("\n")).toContain(".agent-serve/");

    const server = await startServe([dir, "--port", "0"], env);
    running.push(server);
    expect(server.stdout()).toContain("(model scripted)");
    const chat = await run(["chat", "--url", `${server.url}/my-agent`], { env, stdin: "hi\n" });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain("my-agent› echo: hi\n");
    // The sessions live in the project's .agent-serve/, which the scaffold ignores.
    expect(existsSync(join(dir, ".agent-serve", "my-agent"))).toBe(true);
  });

  it("the tools template validates and its tool, approval gate and artifact kind work", async () => {
    expect((await run(["init", "shop", "--template", "tools"], { env, cwd: scratch })).code).toBe(0);
    const dir = join(scratch, "shop");
    const validate = await run(["validate"], { env, cwd: dir });
    expect(validate.code).toBe(0);
    const info = JSON.parse((await run(["info", "--json"], { env, cwd: dir })).stdout) as {
      projects: Array<{ tools: Array<{ name: string; needsApproval: unknown }>; artifacts: { kinds: Array<{ name: string }> }; schedules: Array<{ id: string }> }>;
    };
    const [shop] = info.projects;
    expect(shop!.tools.map((t) => [t.name, t.needsApproval])).toEqual([["lookup_order", false], ["refund_order", "predicate"]]);
    expect(shop!.artifacts.kinds.map((kind) => kind.name)).toEqual(["refund"]);
    expect(shop!.schedules.map((schedule) => schedule.id)).toEqual(["daily-report"]);
    const call = await run(["call", "lookup_order", "--input", '{"orderId":"A-1"}', "--json"], { env, cwd: dir });
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ ok: true, isError: false, result: { orderId: "A-1", status: "shipped" } });
    const refund = await run(["run", "--message", '/tool refund_order {"orderId":"A-1","amount":5}'], { env, cwd: dir });
    expect(refund.stdout.trim()).toBe("done");
  });

  it("the channel template validates, shows its routes, and its channel starts a conversation and records replies", async () => {
    expect((await run(["init", "desk", "--template", "channel"], { env, cwd: scratch })).code).toBe(0);
    const dir = join(scratch, "desk");
    const validate = await run(["validate"], { env, cwd: dir });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain("desk: channel support: POST /desk/v1/channels/support/tickets, GET /desk/v1/channels/support/tickets/:sessionId");
    const server = await startServe([dir, "--port", "0"], env);
    running.push(server);
    const base = `${server.url}/desk/v1/channels/support`;
    const opened = await fetch(`${base}/tickets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ticketId: "T-1", text: "My order is late" }),
    });
    expect(opened.status).toBe(200);
    const { sessionId } = (await opened.json()) as { sessionId: string };
    const state = await eventually(async () => {
      const current = ((await (await fetch(`${base}/tickets/${sessionId}`)).json()) as { state: unknown }).state;
      return (current as { replies?: number } | undefined)?.replies ? current : undefined;
    }, 20_000, "the ticket's reply");
    expect(state).toEqual({ ticketId: "T-1", replies: 1, lastReply: "echo: My order is late" });
    const invalid = await fetch(`${base}/tickets`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(invalid.status).toBe(400);
  });

  it("--json lists the files; an empty existing directory is fine", async () => {
    mkdirSync(join(scratch, "empty"));
    const result = await run(["init", "empty", "--template", "basic", "--json"], { env, cwd: scratch });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: true,
      dir: join(scratch, "empty"),
      template: "basic",
      files: ["package.json", "bot/agent.ts", "bot/instructions.md", "bot/hooks/memory.ts", ".gitignore"],
    });
  });

  it("refuses a non-empty directory and overwrites nothing", async () => {
    const dir = join(scratch, "taken");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), "{}\n");
    const result = await run(["init", dir], { env, cwd: scratch });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not empty (package.json)");
    expect(readFileSync(join(dir, "package.json"), "utf8")).toBe("{}\n");
    expect(existsSync(join(dir, "bot"))).toBe(false);
  });

  it("names the templates on an unknown one, and refuses a name that is no slug", async () => {
    const unknown = await run(["init", "x1", "--template", "fancy"], { env, cwd: scratch });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown template "fancy"; templates: basic, tools, channel, github, slack');
    const badName = await run(["init", "docs"], { env, cwd: scratch });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('slug "docs" is reserved');
    expect(existsSync(join(scratch, "x1")) || existsSync(join(scratch, "docs"))).toBe(false);
  });
});
