/**
 * The playground SPA in a real browser (Chromium through playwright-core) against real hosts on
 * loopback: chat with live streaming, reasoning, tool cards and approvals, token rotation and a
 * stale token, deep links, Runs, Raw (and a fork from one of its lines), Logs, Agent and its Try
 * form, Evals, the bearer-token form, single mode, a resumed stream after a dropped connection,
 * and model output that looks like markup. Any console error or uncaught exception on a page (CSP
 * violations included) fails the test.
 */
import { type Server, type Socket, createServer, connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { readPlaygroundSite } from "../loader/playground-site.ts";
import { GET, POST, defineChannel } from "../src/entries/channels.ts";
import { defineEval, includes } from "../src/entries/evals.ts";
import { defineHook } from "../src/entries/hooks.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import type { PlaygroundSite } from "../src/http/site-types.ts";
import { CHROMIUM_PATH, freshPages, hasChromium, launchChromium } from "./_browser.ts";
import { type TestEvent, postJson, project, quietLogger } from "./_harness.ts";

const tools = {
  weather: defineTool({
    description: "Weather for a city",
    inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(1)) }),
    execute: (input) => ({ city: input.city, sky: "clear" }),
  }),
  explode: defineTool({
    description: "Always fails",
    inputSchema: v.object({}),
    execute() {
      throw new Error("the fuse was lit");
    },
  }),
  danger: defineTool({
    description: "Deletes things; needs approval",
    inputSchema: v.object({ what: v.string() }),
    needsApproval: true,
    execute: (input) => `deleted ${input.what}`,
  }),
};

const desk = defineChannel({
  routes: [
    POST("/ticket", {
      description: "Open a support ticket",
      bodySchema: v.object({ text: v.pipe(v.string(), v.minLength(1)) }),
      handler: async (_request, { body, send }) => {
        const session = await send(body.text, { title: `ticket: ${body.text}` });
        return { sessionId: session.sessionId };
      },
    }),
    GET("/status", { description: "Desk status", querySchema: v.object({}), handler: () => ({ open: true }) }),
    GET("/tickets/:id", { querySchema: v.object({}), handler: (_request, { params }) => ({ id: params.id }) }),
  ],
});

const hooks = {
  "log-turns": defineHook({ events: { "turn.completed": (event, ctx) => ctx.logger.info(`turn finished in ${event.sessionId}`) } }),
};

const evals = {
  greet: defineEval({
    description: "echoes a greeting",
    async test(t) {
      const reply = await t.send("hello there");
      t.succeeded();
      await t.check(reply, includes("echo: hello there"));
    },
  }),
};

/** No model is named, so turns run on the built-in scripted model (no credential is passed either). */
function hostOptions(site: PlaygroundSite, overrides: Partial<AgentHostOptions> = {}): AgentHostOptions {
  return {
    agents: [{ slug: "hello", project: project({ name: "Hello Agent", tools, hooks, evals, channels: { desk } }), storage: createMemoryStorage() }],
    logger: quietLogger,
    drainTimeoutMs: 50,
    playground: site,
    ...overrides,
  };
}

interface Running {
  host: AgentHost;
  server: NodeServer;
}

async function start(options: AgentHostOptions): Promise<Running> {
  const host = createHost(options);
  return { host, server: await serveNode(host, { port: 0, silent: true }) };
}

/** How long a locator or poll waits: generous for a loaded CI runner, still quick to fail. */
const patience = { timeout: 10_000 };

const ARTIFACTS = fileURLToPath(new URL("./artifacts/playground/", import.meta.url));

const title = hasChromium ? "playground in Chromium" : `playground in Chromium (skipped: no Chromium at ${CHROMIUM_PATH})`;

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser;
  let multi: Running;
  let single: Running;
  let guarded: Running;
  let proxy: SeverableProxy;
  const pages = freshPages(() => browser, patience.timeout);

  beforeAll(async () => {
    const site = await readPlaygroundSite();
    [browser, multi, single, guarded] = await Promise.all([
      launchChromium(),
      start(hostOptions(site)),
      start(hostOptions(site, { mode: "single" })),
      start(hostOptions(site, { auth: { bearerToken: "t0k" } })),
    ]);
    proxy = await severableProxy(multi.server.port);
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    for (const running of [multi, single, guarded]) {
      if (!running) continue;
      await running.host.close();
      await running.server.close(true);
    }
  });

  /** Saves a screenshot under test/artifacts/playground/ (gitignored) for a person to look at. */
  async function keepScreenshot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  }

  const open = (url: string): Promise<Page> => pages.open(url);

  const playground = (running: Running = multi, path = "/hello/playground"): string => `${running.server.url}${path}`;
  const assistant = (page: Page): Locator => page.getByRole("article", { name: "Assistant message" });
  const user = (page: Page): Locator => page.getByRole("article", { name: "You message" });
  const tab = (page: Page, name: string): Locator => page.getByRole("tab", { name, exact: true });

  async function send(page: Page, text: string): Promise<void> {
    await page.getByRole("textbox", { name: "Message" }).fill(text);
    await page.getByRole("textbox", { name: "Message" }).press("Enter");
  }

  async function sessionIdOf(page: Page): Promise<string> {
    await expect.poll(() => page.getByTestId("session-id").textContent(), patience).toMatch(/^ses_/);
    return (await page.getByTestId("session-id").textContent()) ?? "";
  }

  it("streams replies, shows reasoning, continues the session and restores it from ?sessionId=", async () => {
    const page = await open(playground());
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), patience).toBe("Hello Agent");

    await send(page, "/reply hello there");
    await assistant(page).filter({ hasText: "hello there" }).waitFor();
    const sessionId = await sessionIdOf(page);
    expect(new URL(page.url()).searchParams.get("sessionId")).toBe(sessionId);
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "hidden" });

    // Follow-ups use the rotated token each time; Shift+Enter adds a line instead of sending.
    await send(page, "/reason weighing the options\n/reply second answer");
    await assistant(page).filter({ hasText: "second answer" }).waitFor();
    const conversation = page.getByRole("log", { name: "Conversation" });
    const reasoning = conversation.getByRole("group").filter({ hasText: "Reasoning" });
    expect(await reasoning.getByText("weighing the options", { exact: true }).isVisible()).toBe(false);
    await reasoning.getByText("Reasoning", { exact: true }).click();
    await reasoning.getByText("weighing the options", { exact: true }).waitFor();
    const composer = page.getByRole("textbox", { name: "Message" });
    await composer.fill("first line");
    await composer.press("Shift+Enter");
    await composer.pressSequentially("/reply third answer");
    await composer.press("Enter");
    await assistant(page).filter({ hasText: "third answer" }).waitFor();
    await expect.poll(() => user(page).last().innerText(), patience).toContain("first line\n/reply third answer");
    // A completed reply is a Markdown paragraph: a blank line after the label in innerText.
    expect(await assistant(page).allInnerTexts()).toEqual(["Assistant\n\nhello there", "Assistant\n\nsecond answer", "Assistant\n\nthird answer"]);

    await page.reload();
    await assistant(page).filter({ hasText: "third answer" }).waitFor();
    expect(await sessionIdOf(page)).toBe(sessionId);
    expect(await user(page).count()).toBe(3);
    expect(await assistant(page).allInnerTexts()).toEqual(["Assistant\n\nhello there", "Assistant\n\nsecond answer", "Assistant\n\nthird answer"]);

    await page.getByRole("button", { name: "New chat" }).click();
    await expect.poll(() => assistant(page).count(), patience).toBe(0);
    expect(await page.getByTestId("session-id").textContent()).toBe("new conversation");
    expect(new URL(page.url()).searchParams.has("sessionId")).toBe(false);
  });

  it("explains the scripted model's directives on an empty conversation, and only there", async () => {
    const page = await open(playground());
    const hint = page.getByRole("note", { name: "Getting started" });
    await hint.getByText("/tool <name> <json>", { exact: true }).waitFor();
    expect(await hint.getByText(/^alone on its line: answer with the lines below it/).isVisible()).toBe(true);
    await send(page, "/reply hi");
    await assistant(page).filter({ hasText: "hi" }).waitFor();
    expect(await hint.isVisible()).toBe(false);
    await page.getByRole("button", { name: "New chat" }).click();
    await hint.waitFor();
    expect(await assistant(page).count()).toBe(0);
  });

  it("renders tool calls inline with their arguments, results and errors", async () => {
    const page = await open(playground());
    await send(page, '/tool weather {"city":"Paris"}\n/tool explode {}');
    await assistant(page).filter({ hasText: "done" }).waitFor();

    const weather = page.getByRole("article", { name: "Tool call weather" });
    await weather.getByText("Done", { exact: true }).waitFor();
    await weather.getByText("Arguments").click();
    expect(await weather.getByRole("group").innerText()).toBe('Arguments\n{\n  "city": "Paris"\n}');
    expect(await weather.getByText('"sky": "clear"').isVisible()).toBe(true);

    const explode = page.getByRole("article", { name: "Tool call explode" });
    await explode.getByText("Error", { exact: true }).waitFor();
    expect(await explode.getByText("the fuse was lit").isVisible()).toBe(true);
  });

  it("asks for approval: Approve runs the tool, Deny records the denial", async () => {
    const page = await open(playground());
    await send(page, '/tool danger {"what":"temp files"}');
    const first = page.getByRole("article", { name: "Tool call danger" }).first();
    await first.getByRole("button", { name: "Approve" }).click();
    await first.getByText("Approved").waitFor();
    await first.getByText("deleted temp files").waitFor();
    // A decided call offers no second decision.
    expect(await first.getByRole("button", { name: /Approve|Deny/ }).count()).toBe(0);
    await assistant(page).filter({ hasText: "done" }).waitFor();

    await send(page, '/tool danger {"what":"production"}');
    const second = page.getByRole("article", { name: "Tool call danger" }).nth(1);
    await second.getByRole("button", { name: "Deny" }).click();
    await second.getByText("Denied", { exact: true }).first().waitFor();
    await second.getByText("Error", { exact: true }).waitFor();
    expect(await second.getByRole("button", { name: /Approve|Deny/ }).count()).toBe(0);
    expect(await second.getByText("deleted production").count()).toBe(0);
  });

  it("stops a running turn", async () => {
    const page = await open(playground());
    await send(page, "/sleep 10000\n/reply too late");
    await page.getByRole("button", { name: "Stop" }).click();
    // A stop is what the user asked for: shown as stopped, not as a failure.
    await page.getByRole("log", { name: "Conversation" }).getByText("Stopped", { exact: true }).waitFor();
    expect(await page.getByRole("alert").filter({ hasText: "Turn failed" }).count()).toBe(0);
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "hidden" });
    expect(await assistant(page).count()).toBe(0);
    // The focus stays where the next message is typed.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")), patience).toBe("Message");
    await keepScreenshot(page, "stopped-turn");
  });

  it("renders replies as sanitized Markdown once complete", async () => {
    const page = await open(playground());
    const reply = "**bold** and `code` and [docs](https://example.com/docs) and [bad](javascript:alert(1))\n\n- one\n- two\n\n```\nconst x = 1;\n```";
    // A bare /reply answers with the lines below it (docs/guide/getting-started.md "The scripted model").
    await send(page, `/reply\n${reply}`);
    const message = assistant(page).last();
    await message.locator("strong", { hasText: "bold" }).waitFor();
    expect(await message.locator("code").first().textContent()).toBe("code");
    const link = message.getByRole("link", { name: "docs" });
    expect(await link.getAttribute("href")).toBe("https://example.com/docs");
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    // A javascript: link keeps its text and loses its target.
    expect(await message.getByText("bad", { exact: true }).getAttribute("href")).toBeNull();
    expect(await message.getByRole("listitem").allInnerTexts()).toEqual(["one", "two"]);
    expect((await message.locator("pre").innerText()).trim()).toBe("const x = 1;");
    await keepScreenshot(page, "markdown-reply");
  });

  it("shows each turn in Timeline with its steps and tool calls, durations, tokens and cost", async () => {
    const page = await open(playground());
    await send(page, '/tool weather {"city":"Oslo"}\n/reply sunny');
    await assistant(page).filter({ hasText: "sunny" }).waitFor();
    await send(page, "/sleep 5000\n/reply never");
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "hidden" });
    await tab(page, "Timeline").click();
    const turns = page.getByRole("list", { name: "Turns" }).getByRole("listitem").filter({ has: page.locator(".turn-summary") });
    await expect.poll(() => turns.count(), patience).toBe(2);
    const first = turns.nth(0);
    await expect.poll(() => first.locator(".turn-summary").innerText(), patience).toMatch(/^Turn 1\s+completed\s+“\/tool weather \{"city":"Oslo"\}” · \d+ in \/ \d+ out tokens · \d+(\.\d)? (ms|s) · \$0\.000000$/);
    expect(await first.locator(".turn-items").innerText()).toMatch(/Step 1: \d+ ms · called tools\n⚙ weather ok in \d+ ms\nStep 2: \d+ ms/);
    await expect.poll(() => turns.nth(1).locator(".turn-summary").innerText(), patience).toMatch(/^Turn 2\s+stopped\s+“\/sleep 5000”/);
    await keepScreenshot(page, "timeline");
  });

  it("renames a session from Runs", async () => {
    const page = await open(playground());
    await send(page, "/reply to be renamed");
    await assistant(page).filter({ hasText: "to be renamed" }).waitFor();
    const sessionId = await sessionIdOf(page);
    await tab(page, "Runs").click();
    await page.getByRole("button", { name: `Rename ${sessionId}` }).click();
    const input = page.getByRole("textbox", { name: `New title for ${sessionId}` });
    await input.fill("Renamed in the browser");
    await input.press("Enter");
    const row = page.getByRole("list", { name: "Sessions" }).getByRole("listitem").filter({ hasText: sessionId });
    await row.getByText("Renamed in the browser").waitFor();
    const listed = (await (await fetch(`${multi.server.url}/hello/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; title?: string }> };
    expect(listed.sessions.find((item) => item.sessionId === sessionId)?.title).toBe("Renamed in the browser");
    await keepScreenshot(page, "runs-renamed");
  });

  it("deletes a session from Runs after asking, and keeps it when the question is declined", async () => {
    const page = await open(playground());
    await send(page, "/reply to be deleted");
    await assistant(page).filter({ hasText: "to be deleted" }).waitFor();
    const sessionId = await sessionIdOf(page);
    await tab(page, "Runs").click();
    const rows = page.getByRole("list", { name: "Sessions" }).getByRole("listitem").filter({ hasText: sessionId });
    const stored = async (): Promise<number> => (await fetch(`${multi.server.url}/hello/v1/session/${sessionId}/events`)).status;

    const questions: string[] = [];
    page.once("dialog", (dialog) => {
      questions.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole("button", { name: `Delete ${sessionId}` }).click();
    await expect.poll(() => questions.length, patience).toBe(1);
    expect(questions[0]).toContain("removed for good");
    expect(await rows.count()).toBe(1);
    expect(await stored()).toBe(200);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: `Delete ${sessionId}` }).click();
    await rows.waitFor({ state: "detached" });
    await expect.poll(stored, patience).toBe(404);
    await keepScreenshot(page, "runs-deleted");
  });

  it("the A2A tab lists a session's A2A tasks with their state and reply, and the agent's endpoints", async () => {
    const endpoint = `${multi.server.url}/hello/v1/a2a`;
    const send = (text: string, contextId?: string) =>
      fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: text, role: "ROLE_USER", parts: [{ text }], ...(contextId ? { contextId } : {}) } } }),
      }).then(async (response) => ((await response.json()) as { result: { task: { id: string; contextId: string } } }).result.task);
    const first = await send("/reply first over A2A");
    await send("/fail the peer gave up", first.contextId);
    const page = await open(`${playground()}?sessionId=${first.contextId}&tab=a2a`);
    const tasks = page.getByRole("list", { name: "A2A tasks" });
    await tasks.getByRole("listitem").nth(1).waitFor();
    expect(await tasks.getByRole("listitem", { name: "Task failed" }).innerText()).toContain("the peer gave up");
    expect(await tasks.getByRole("listitem", { name: "Task completed" }).innerText()).toContain(first.id);
    expect(await page.getByText(`${multi.server.url}/hello/.well-known/agent-card.json`).isVisible()).toBe(true);
    await keepScreenshot(page, "a2a-tasks");
  });

  it("fits a phone: the tab bar scrolls within the page and every tab is reachable", async () => {
    const page = await open(playground());
    await page.setViewportSize({ width: 375, height: 740 });
    await send(page, "/reply small screen");
    await assistant(page).filter({ hasText: "small screen" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    for (const name of ["Chat", "Timeline", "Runs", "Artifacts", "A2A", "Evals", "Agent", "Raw", "Logs"]) {
      await tab(page, name).scrollIntoViewIfNeeded();
      const box = await tab(page, name).boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(375 + 0.5);
    }
    await tab(page, "Logs").click();
    await keepScreenshot(page, "phone-logs");
  });

  it("shows model output that looks like markup as text", async () => {
    const page = await open(playground());
    const markup = '<img src=x onerror="document.title=\'pwned\'"> and <b>not bold</b>';
    await send(page, `/reply ${markup}`);
    await assistant(page).filter({ hasText: "not bold" }).waitFor();
    expect(await assistant(page).innerText()).toBe(`Assistant\n\n${markup}`);
    expect(await page.locator("main img, main b").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
  });

  it("refreshes a stale continuation token once and sends the message", async () => {
    const page = await open(playground());
    await send(page, "/reply from the page");
    await assistant(page).filter({ hasText: "from the page" }).waitFor();
    const sessionId = await sessionIdOf(page);

    // Another client continues the session: the token the page holds goes stale.
    const listed = (await (await fetch(`${multi.server.url}/hello/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; continuationToken: string }> };
    const token = listed.sessions.find((item) => item.sessionId === sessionId)?.continuationToken;
    const moved = await fetch(`${multi.server.url}/hello/v1/session/${sessionId}`, postJson({ continuationToken: token, message: "/reply from elsewhere" }));
    expect(moved.status).toBe(200);
    await assistant(page).filter({ hasText: "from elsewhere" }).waitFor();

    pages.problems?.allow(/status of 409/);
    await send(page, "/reply back in the page");
    await assistant(page).filter({ hasText: "back in the page" }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
  });

  it("lists sessions in Runs, filters them, and opens one in Chat and in Raw", async () => {
    const tag = `${Date.now().toString(36)}`;
    const apple = await createSession(multi, `/reply apple pie ${tag}`, `apple ${tag}`);
    const banana = await createSession(multi, `/reply banana split ${tag}`, `banana ${tag}`);
    const page = await open(playground());
    await tab(page, "Runs").click();
    const sessions = page.getByRole("list", { name: "Sessions" });
    await sessions.getByRole("listitem").filter({ hasText: apple }).waitFor();
    await sessions.getByRole("listitem").filter({ hasText: banana }).waitFor();

    const search = page.getByRole("searchbox", { name: "Search sessions" });
    await search.fill(`banana ${tag}`);
    await expect.poll(() => sessions.getByRole("listitem").count(), patience).toBe(1);
    expect(await sessions.getByRole("listitem").innerText()).toContain(banana);
    await search.fill(apple);
    await expect.poll(() => sessions.getByRole("listitem").count(), patience).toBe(1);

    await sessions.getByRole("listitem").filter({ hasText: apple }).getByRole("button", { name: new RegExp(`apple ${tag}`) }).click();
    expect(await tab(page, "Chat").getAttribute("aria-selected")).toBe("true");
    await assistant(page).filter({ hasText: `apple pie ${tag}` }).waitFor();
    expect(new URL(page.url()).searchParams.get("sessionId")).toBe(apple);

    await tab(page, "Runs").click();
    await search.fill(banana);
    await page.getByRole("button", { name: `Open ${banana} in Raw` }).click();
    expect(await tab(page, "Raw").getAttribute("aria-selected")).toBe("true");
    const events = await recordedEvents(multi, banana);
    const lines = page.getByRole("list", { name: "Events" }).getByRole("listitem");
    await expect.poll(() => lines.count(), patience).toBe(events.length);
    const shown = await lines.allInnerTexts();
    shown.forEach((line, i) => expect(line).toMatch(new RegExp(`^${i}\\s+\\{"type":"${events[i]!.type.replace(".", "\\.")}","index":${i},`)));
    expect(shown.join("\n")).toContain(`banana split ${tag}`);
  });

  it("loads Runs a page at a time: Load more brings the older sessions, each once", async () => {
    const tag = `page${Date.now().toString(36)}`;
    const first = await createSession(multi, `/reply first ${tag}`, `first ${tag}`);
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`${multi.server.url}/hello/v1/session`, postJson({ message: `/reply more ${tag}`, title: `more ${tag} ${i}` }));
      expect(response.status).toBe(200);
    }
    const page = await open(playground());
    await tab(page, "Runs").click();
    const sessions = page.getByRole("list", { name: "Sessions" });
    const more = page.getByRole("button", { name: "Load more sessions" });
    await expect.poll(() => sessions.getByRole("listitem").count(), patience).toBe(50);
    expect(await sessions.getByRole("listitem").filter({ hasText: first }).count()).toBe(0);
    while (await more.isVisible()) await more.click();
    await sessions.getByRole("listitem").filter({ hasText: first }).waitFor();
    const ids = (await sessions.getByRole("listitem").locator("code").allInnerTexts()).map((text) => text.trim());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(50);
  });

  it("forks a session from a line in Raw and continues the fork in Chat", async () => {
    const tag = `${Date.now().toString(36)}`;
    const source = await createSession(multi, `/reply cherry tart ${tag}`, `cherry ${tag}`);
    const events = await recordedEvents(multi, source);
    const end = events.find((event) => event.type === "turn.completed")!.index;
    const page = await open(`${playground()}?sessionId=${source}`);
    await tab(page, "Raw").click();
    await page.getByRole("button", { name: `Fork from event ${end}` }).click();
    // The fork is asked for first, then opened in Chat.
    await expect.poll(() => tab(page, "Chat").getAttribute("aria-selected"), patience).toBe("true");
    await expect.poll(() => page.getByTestId("session-id").textContent(), patience).not.toBe(source);
    const forked = await sessionIdOf(page);
    await assistant(page).filter({ hasText: `cherry tart ${tag}` }).waitFor();
    // The fork takes a follow-up with the token the fork answered; the source is unchanged.
    await send(page, `/reply on the branch ${tag}`);
    await assistant(page).filter({ hasText: `on the branch ${tag}` }).waitFor();
    const branch = await recordedEvents(multi, forked);
    expect(branch[end + 1]).toMatchObject({ type: "session.forked", data: { sourceSessionId: source, atIndex: end } });
    expect(await recordedEvents(multi, source)).toEqual(events);
  });

  it("resumes a dropped stream from the last index without duplicates", async () => {
    const page = await open(`${proxy.url}/hello/playground`);
    // Chromium reports the cut stream (and any cut keep-alive connection) as a failed load.
    pages.problems?.allow(/Failed to load resource: net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_RESET|EMPTY_RESPONSE)/);
    await send(page, "/reply before the drop");
    await assistant(page).filter({ hasText: "before the drop" }).waitFor();
    const sessionId = await sessionIdOf(page);

    proxy.severAll();
    await send(page, "/reply after the drop");
    await assistant(page).filter({ hasText: "after the drop" }).waitFor();
    expect(await assistant(page).allInnerTexts()).toEqual(["Assistant\n\nbefore the drop", "Assistant\n\nafter the drop"]);
    expect(await user(page).count()).toBe(2);

    await tab(page, "Raw").click();
    const events = await recordedEvents(multi, sessionId);
    const lines = page.getByRole("list", { name: "Events" }).getByRole("listitem");
    await expect.poll(() => lines.count(), patience).toBe(events.length);
    const indexes = (await lines.allInnerTexts()).map((line) => Number(line.split(/\s/, 1)[0]));
    expect(indexes).toEqual(events.map((_, i) => i));
  });

  it("shows server log lines in Logs", async () => {
    const sessionId = await createSession(multi, "/reply log me", "logs");
    await until(async () => {
      const body = (await (await fetch(`${multi.server.url}/hello/v1/logs`)).json()) as { lines: Array<{ message: string }> };
      return body.lines.some((line) => line.message.includes(sessionId)) || undefined;
    });
    const page = await open(playground());
    await tab(page, "Logs").click();
    await page.getByRole("list", { name: "Log lines" }).getByText(`turn finished in ${sessionId}`).waitFor();
  });

  it("shows schedules with their next fire time, and under --dev runs one now", async () => {
    const dev = await start(
      hostOptions(await readPlaygroundSite(), {
        dev: true,
        agents: [{ slug: "hello", project: project({ name: "Hello Agent", schedules: { digest: { cron: "0 9 * * *", markdown: "/reply digest sent" } } }), storage: createMemoryStorage() }],
      }),
    );
    try {
      const page = await open(playground(dev));
      await tab(page, "Agent").click();
      const digest = page.getByRole("listitem", { name: "Schedule digest" });
      await expect.poll(() => digest.innerText(), patience).toMatch(/^digest 0 9 \* \* \* · would fire \S.*\d/);
      await digest.getByRole("button", { name: "Run now" }).click();
      await expect.poll(() => digest.getByRole("status").textContent(), patience).toMatch(/^started 1 session: ses_\w+$/);
      const sessionId = /ses_\w+/.exec((await digest.getByRole("status").textContent()) ?? "")?.[0];
      const listed = (await (await fetch(`${dev.server.url}/hello/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; title?: string; mode: string }> };
      expect(listed.sessions.find((item) => item.sessionId === sessionId)).toMatchObject({ title: "digest", mode: "task" });
      await keepScreenshot(page, "agent-schedules");
    } finally {
      await dev.host.close();
      await dev.server.close(true);
    }
    expect(pages.problems?.errors ?? []).toEqual([]);
    await pages.context?.close();
    // Outside --dev there is no Run now: schedules fire on their own, at the time shown.
    const plain = await start(
      hostOptions(await readPlaygroundSite(), {
        agents: [{ slug: "hello", project: project({ name: "Hello Agent", schedules: { digest: { cron: "0 9 * * *", markdown: "/reply digest sent" } } }), storage: createMemoryStorage() }],
      }),
    );
    try {
      const page = await open(playground(plain));
      await tab(page, "Agent").click();
      const digest = page.getByRole("listitem", { name: "Schedule digest" });
      await expect.poll(() => digest.innerText(), patience).toMatch(/^digest 0 9 \* \* \* · next \S.*\d/);
      expect(await digest.getByRole("button", { name: "Run now" }).count()).toBe(0);
    } finally {
      await plain.host.close();
      await plain.server.close(true);
    }
  });

  it("browses artifacts, filters them by kind, and downloads a payload", async () => {
    const report = defineTool({
      description: "Writes a report",
      inputSchema: v.object({ name: v.string() }),
      async execute(input, ctx) {
        await ctx.artifacts.tag({ kind: "report", key: `${input.name}.csv`, title: `Report ${input.name}`, data: { rows: 2 }, contents: "a,b\n1,2\n", contentType: "text/csv" });
        await ctx.artifacts.tag({ kind: "note", key: input.name, title: "A note", data: { text: "no payload" } });
        return "written";
      },
    });
    const withArtifacts = await start(
      hostOptions(await readPlaygroundSite(), { agents: [{ slug: "hello", project: project({ name: "Hello Agent", tools: { report } }), storage: createMemoryStorage() }] }),
    );
    try {
      const page = await open(playground(withArtifacts));
      await send(page, '/tool report {"name":"q3"}\n/reply done');
      await assistant(page).filter({ hasText: "done" }).waitFor();
      await tab(page, "Artifacts").click();
      const csv = page.getByRole("listitem", { name: "Artifact report/q3.csv" });
      await csv.getByText("Report q3").waitFor();
      const note = page.getByRole("listitem", { name: "Artifact note/q3" });
      await note.waitFor();
      expect(await note.getByRole("button", { name: /^Download/ }).count()).toBe(0);
      const [download] = await Promise.all([page.waitForEvent("download"), csv.getByRole("button", { name: "Download report/q3.csv" }).click()]);
      expect(download.suggestedFilename()).toBe("q3.csv");
      const chunks: Buffer[] = [];
      for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString("utf8")).toBe("a,b\n1,2\n");
      await page.getByRole("combobox", { name: "Kind" }).selectOption("note");
      await expect.poll(() => page.getByRole("list", { name: "Artifacts" }).getByRole("listitem").count(), patience).toBe(1);
      await keepScreenshot(page, "artifacts");
    } finally {
      await withArtifacts.host.close();
      await withArtifacts.server.close(true);
    }
  });

  it("lists the agent's tools and calls one from its Try form", async () => {
    const page = await open(playground());
    await tab(page, "Agent").click();
    const weather = page.getByRole("article", { name: "Tool weather" });
    await weather.getByText("Weather for a city").waitFor();
    expect(await page.getByRole("article", { name: "Tool danger" }).getByText("approval: always").isVisible()).toBe(true);
    await weather.getByText("Input schema").click();
    await weather.getByText('"city"').first().waitFor();

    await weather.getByText("Try", { exact: true }).click();
    const input = weather.getByRole("textbox", { name: "Input for weather" });
    await input.fill('{"city":"Oslo"}');
    await weather.getByRole("button", { name: "Call weather" }).click();
    const result = weather.getByRole("status", { name: "Result of weather" });
    await result.getByText("OK", { exact: true }).waitFor();
    expect(await result.innerText()).toContain('"city": "Oslo"');

    // The API's error envelope is shown, not swallowed.
    pages.problems?.allow(/status of 400/);
    await input.fill("{}");
    await weather.getByRole("button", { name: "Call weather" }).click();
    await result.getByText(/city/).waitFor();
    expect(await result.getByText("OK", { exact: true }).count()).toBe(0);
  });

  it("offers custom channel routes as slash commands: suggestions, Tab, /help, and a command that opens its session", async () => {
    const page = await open(playground());
    const composer = page.getByRole("textbox", { name: "Message" });
    await composer.pressSequentially("/ti");
    const suggestions = page.getByRole("listbox", { name: "Slash commands" });
    await suggestions.getByText("/ticket", { exact: true }).waitFor();
    // A route with a path parameter is no command.
    expect(await suggestions.getByText("/tickets", { exact: true }).count()).toBe(0);
    await composer.press("Tab");
    expect(await composer.inputValue()).toBe("/ticket ");
    await composer.pressSequentially("printer jam");
    await composer.press("Enter");
    const result = page.getByRole("status", { name: "Command result" });
    await result.getByText("POST /hello/v1/channels/desk/ticket → 200").waitFor();
    // The answer named a session: the chat shows it.
    await assistant(page).filter({ hasText: "echo: printer jam" }).waitFor();
    expect(await sessionIdOf(page)).toMatch(/^ses_/);

    await send(page, "/help");
    await result.getByText("Commands", { exact: true }).waitFor();
    expect(await result.innerText()).toContain("/ticket <text>  Open a support ticket");
    expect(await result.innerText()).toContain("/status <json>  Desk status");

    pages.problems?.allow(/status of 400/);
    await send(page, '/ticket {"text":""}');
    await result.getByText("POST /hello/v1/channels/desk/ticket → 400").waitFor();
    expect(await result.innerText()).toContain("invalid_request");
    // Other lines starting with / still go to the model.
    await send(page, "/reply still a message");
    await assistant(page).filter({ hasText: "still a message" }).waitFor();
  });

  it("tries a channel route from the Agent tab, remembers the last body, copies curl, and Runs shows the channel", async () => {
    const page = await open(playground());
    await tab(page, "Agent").click();
    const route = page.getByRole("article", { name: "Route POST /hello/v1/channels/desk/ticket" });
    await route.getByText("Open a support ticket").waitFor();
    await route.getByText("Body schema").click();
    await route.getByText('"text"').first().waitFor();
    await route.getByText("Try", { exact: true }).click();
    const body = route.getByRole("textbox", { name: "Body for POST /hello/v1/channels/desk/ticket" });
    await body.fill('{"text":"from the try form"}');
    await route.getByRole("button", { name: "Send POST /hello/v1/channels/desk/ticket" }).click();
    const answer = route.getByRole("status", { name: "Answer of POST /hello/v1/channels/desk/ticket" });
    await answer.getByText("200", { exact: true }).waitFor();
    expect(await answer.innerText()).toMatch(/"sessionId": "ses_/);

    pages.problems?.allow(/status of 400/);
    await body.fill("{}");
    await route.getByRole("button", { name: "Send POST /hello/v1/channels/desk/ticket" }).click();
    await answer.getByText("400", { exact: true }).waitFor();
    await route.getByRole("button", { name: "Copy curl for POST /hello/v1/channels/desk/ticket" }).click();
    const curl = await route.getByLabel("curl for POST /hello/v1/channels/desk/ticket", { exact: true }).innerText();
    expect(curl).toBe(`curl -X POST '${multi.server.url}/hello/v1/channels/desk/ticket' -H 'content-type: application/json' -d '{}'`);

    await page.reload();
    await tab(page, "Agent").click();
    await route.getByText("Try", { exact: true }).click();
    expect(await body.inputValue()).toBe("{}");

    await tab(page, "Runs").click();
    const row = page.getByRole("list", { name: "Sessions" }).getByRole("listitem").filter({ hasText: "ticket: from the try form" });
    await row.waitFor();
    expect(await row.getByText("desk", { exact: true }).isVisible()).toBe(true);
  });

  it("runs the agent's evals to completion and finds the run in Runs", async () => {
    const page = await open(playground());
    await tab(page, "Evals").click();
    await page.getByRole("list", { name: "Evals" }).getByText("greet", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Run all" }).click();
    await expect.poll(() => page.getByTestId("eval-run-status").textContent(), patience).toBe("completed");
    const cases = page.getByRole("list", { name: "Eval cases" });
    expect(await cases.getByRole("listitem").innerText()).toMatch(/greet\s+passed/);

    await tab(page, "Runs").click();
    const run = page.getByRole("list", { name: "Eval runs" }).getByRole("listitem").first();
    await run.getByText("completed").waitFor();
    await run.getByRole("button").click();
    expect(await tab(page, "Evals").getAttribute("aria-selected")).toBe("true");
    await expect.poll(() => page.getByTestId("eval-run-status").textContent(), patience).toBe("completed");
  });

  it("asks for the bearer token when the agent answers 401, then works", async () => {
    const page = await open(playground(guarded));
    pages.problems?.allow(/status of 401/);
    const dialog = page.getByRole("dialog", { name: "Authentication required" });
    await dialog.waitFor();
    await dialog.getByLabel("Bearer token").fill("wrong");
    await dialog.getByRole("button", { name: "Continue" }).click();
    await dialog.getByText("The token was not accepted").waitFor();
    await dialog.getByLabel("Bearer token").fill("t0k");
    await dialog.getByRole("button", { name: "Continue" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByText("scripted", { exact: true }).waitFor();

    await send(page, "/reply let in");
    await assistant(page).filter({ hasText: "let in" }).waitFor();
    expect(await dialog.isVisible()).toBe(false);
  });

  it("works in single mode, with an empty base path", async () => {
    const page = await open(playground(single, "/playground"));
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), patience).toBe("Hello Agent");
    await send(page, "/reply single mode works");
    await assistant(page).filter({ hasText: "single mode works" }).waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe("/playground");
    expect(url.searchParams.get("sessionId")).toMatch(/^ses_/);
  });
});

// --- internals ---

async function createSession(running: Running, message: string, title: string): Promise<string> {
  const response = await fetch(`${running.server.url}/hello/v1/session`, postJson({ message, title }));
  expect(response.status).toBe(200);
  const { sessionId } = (await response.json()) as { sessionId: string };
  // Wait for the turn to finish so what the page shows is final.
  await until(async () => ((await recordedEvents(running, sessionId)).some((event) => event.type === "session.waiting") ? true : undefined));
  return sessionId;
}

async function recordedEvents(running: Running, sessionId: string): Promise<TestEvent[]> {
  const text = await (await fetch(`${running.server.url}/hello/v1/session/${sessionId}/events`)).text();
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
}

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = patience.timeout): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface SeverableProxy {
  url: string;
  /** Cuts every open connection, as a flaky network would; new connections still go through. */
  severAll(): void;
  close(): Promise<void>;
}

/** A loopback TCP proxy in front of `port`, so a test can drop the page's live stream mid-session. */
async function severableProxy(port: number): Promise<SeverableProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    severAll() {
      for (const socket of sockets) socket.destroy();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
