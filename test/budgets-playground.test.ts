/**
 * The playground shows budgets (docs/guide/budgets.md "Usage"): in Chromium against a real host
 * on loopback, a turn stopped by its budget says so in Chat and in Timeline, and Timeline shows
 * the session's usage against each limit above its turns. Any console error fails the test.
 */
import type { Browser, BrowserContext } from "playwright-core";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { readPlaygroundSite } from "../loader/playground-site.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { CHROMIUM_PATH, hasChromium, launchChromium, watchProblems } from "./_browser.ts";
import { project, quietLogger } from "./_harness.ts";

const patience = { timeout: 10_000 };
const title = hasChromium ? "budgets in the playground" : `budgets in the playground (skipped: no Chromium at ${CHROMIUM_PATH})`;

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser;
  let host: AgentHost;
  let server: NodeServer;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    const tools = { note: defineTool({ description: "Takes a note", inputSchema: v.object({ n: v.number() }), execute: (input) => `noted ${input.n}` }) };
    host = createHost({
      agents: [{ slug: "hello", project: project({ tools, agent: { budgets: { session: { toolCalls: 1 }, agentPerDay: { tokens: 1_000_000 } } } }), storage: createMemoryStorage() }],
      logger: quietLogger,
      drainTimeoutMs: 50,
      playground: await readPlaygroundSite(),
    });
    [browser, server] = await Promise.all([launchChromium(), serveNode(host, { port: 0, silent: true })]);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await host?.close();
    await server?.close(true);
  });

  it("Timeline shows the crossing and the usage against each limit", async () => {
    context = await browser.newContext();
    context.setDefaultTimeout(patience.timeout);
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/hello/playground`);
    await page.getByRole("textbox", { name: "Message" }).fill('/tool note {"n":1}\n/tool note {"n":2}\n/reply done');
    await page.getByRole("textbox", { name: "Message" }).press("Enter");
    // Chat says why the turn stopped.
    await page.getByText("Budget reached: session toolCalls 1 of 1; the turn ends here").waitFor();
    await page.getByRole("tab", { name: "Timeline", exact: true }).click();
    const turn = page.getByRole("list", { name: "Turns" }).getByRole("listitem").filter({ has: page.locator(".turn-summary") }).first();
    await expect.poll(() => turn.locator(".turn-summary").innerText(), patience).toMatch(/^Turn 1\s+completed/);
    expect(await turn.locator(".turn-items").innerText()).toContain("Budget reached: session toolCalls 1 of 1");
    const budgets = page.getByTestId("timeline-budgets");
    await expect.poll(() => budgets.innerText(), patience).toMatch(/Session: toolCalls 1 \/ 1 \(used up\)/);
    expect(await budgets.innerText()).toMatch(/Agent today \(UTC\): tokens \d+ \/ 1000000 · resets \d{4}-\d{2}-\d{2}T00:00:00\.000Z/);
    expect(problems.errors).toEqual([]);
  });
});
