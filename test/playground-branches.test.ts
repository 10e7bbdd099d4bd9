/**
 * The playground's Branches tab in a real browser (Chromium through playwright-core) against a
 * real host on loopback (docs/guide/forking.md "Comparing branches"): a forked session says so in
 * Chat and leads to Branches, which shows the common point once and what the source and the fork
 * did after it side by side, follows the fork as it moves on, and opens either branch in Chat; a
 * fork at a parked approval is decided in its own Chat, apart from the source. Any console error
 * or uncaught exception on a page (CSP violations included) fails the test.
 */
import type { Browser, Page } from "playwright-core";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { readPlaygroundSite } from "../loader/playground-site.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { CHROMIUM_PATH, freshPages, hasChromium, launchChromium } from "./_browser.ts";
import { type TestEvent, eventually, fetchEvents, postJson, project, quietLogger } from "./_harness.ts";

const tools = {
  danger: defineTool({
    description: "Deletes things; needs approval",
    inputSchema: v.object({ what: v.string() }),
    needsApproval: true,
    execute: (input) => `deleted ${input.what}`,
  }),
};

const patience = { timeout: 10_000 };
const title = hasChromium ? "the Branches tab in Chromium" : `the Branches tab in Chromium (skipped: no Chromium at ${CHROMIUM_PATH})`;

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser;
  let host: AgentHost;
  let server: NodeServer;
  let base: string;
  const pages = freshPages(() => browser, patience.timeout);

  beforeAll(async () => {
    const site = await readPlaygroundSite();
    host = createHost({ agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage() }], logger: quietLogger, drainTimeoutMs: 50, playground: site });
    [browser, server] = await Promise.all([launchChromium(), serveNode(host, { port: 0, silent: true })]);
    base = `${server.url}/hello`;
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await server?.close(true);
  });

  const open = (path: string): Promise<Page> => pages.open(`${base}${path}`);

  const tab = (page: Page, name: string) => page.getByRole("tab", { name, exact: true });
  const events = (sessionId: string): Promise<TestEvent[]> => fetchEvents(base, sessionId);
  const waited = (sessionId: string, count: number, what: string): Promise<TestEvent[]> =>
    eventually(async () => {
      const all = await events(sessionId);
      return all.filter((e) => e.type === "session.waiting").length >= count ? all : undefined;
    }, patience.timeout, what);

  async function create(message: string): Promise<{ sessionId: string; continuationToken: string }> {
    const response = await fetch(`${base}/v1/session`, postJson({ message }));
    expect(response.status).toBe(200);
    return (await response.json()) as { sessionId: string; continuationToken: string };
  }

  async function fork(sessionId: string, atIndex: number, message?: string): Promise<{ sessionId: string; continuationToken: string }> {
    const response = await fetch(`${base}/v1/session/${sessionId}/fork`, postJson({ atIndex, ...(message === undefined ? {} : { message }) }));
    expect(response.status).toBe(200);
    return (await response.json()) as { sessionId: string; continuationToken: string };
  }

  it("shows a fork beside its source from their common point, follows the fork, and opens either branch in Chat", async () => {
    const tag = Date.now().toString(36);
    const source = await create(`/reply first answer ${tag}`);
    const firstTurn = await waited(source.sessionId, 1, "the first turn");
    const common = firstTurn.at(-1)!.index;
    const followed = await fetch(`${base}/v1/session/${source.sessionId}`, postJson({ continuationToken: source.continuationToken, message: `/reply source goes left ${tag}` }));
    expect(followed.status).toBe(200);
    await waited(source.sessionId, 2, "the source's second turn");
    const branch = await fork(source.sessionId, common, `/reply fork goes right ${tag}`);
    await waited(branch.sessionId, 3, "the fork's turn");

    // Chat says the session is a fork and leads to Branches.
    const page = await open(`/playground?sessionId=${branch.sessionId}`);
    await page.getByText(`forked from ${source.sessionId} at event ${common}`).waitFor();
    await page.getByRole("button", { name: "Compare branches" }).click();
    await expect.poll(() => tab(page, "Branches").getAttribute("aria-selected"), patience).toBe("true");
    expect(new URL(page.url()).searchParams.get("tab")).toBe("branches");

    const point = page.getByRole("region", { name: "Common point" });
    await point.getByText(`Common point: event ${common}`).waitFor();
    // The last exchange before the cut: the user's message and the answer.
    await point.getByText(`/reply first answer ${tag}`, { exact: true }).waitFor();
    await point.getByText(`first answer ${tag}`, { exact: true }).waitFor();
    const left = page.getByRole("region", { name: "Source branch" });
    const right = page.getByRole("region", { name: "Fork branch" });
    await left.getByText(`source goes left ${tag}`, { exact: true }).waitFor();
    await right.getByText(`fork goes right ${tag}`, { exact: true }).waitFor();
    await right.getByText(`from ${source.sessionId} at event ${common}`).waitFor();
    expect(await left.getByText(`fork goes right ${tag}`).count()).toBe(0);
    expect(await right.getByText(`source goes left ${tag}`).count()).toBe(0);
    // What both share is shown once, above, not in either column.
    expect(await left.getByText(`first answer ${tag}`).count()).toBe(0);
    expect(await right.getByText(`first answer ${tag}`).count()).toBe(0);
    expect(await left.getByText(source.sessionId, { exact: true }).count()).toBe(1);
    expect(await right.getByText(branch.sessionId, { exact: true }).count()).toBe(1);

    // The fork moves on while the view is open: its column follows.
    const more = await fetch(`${base}/v1/session/${branch.sessionId}`, postJson({ continuationToken: branch.continuationToken, message: `/reply and further ${tag}` }));
    expect(more.status).toBe(200);
    await right.getByText(`and further ${tag}`, { exact: true }).waitFor();
    expect(await left.getByText(`and further ${tag}`).count()).toBe(0);

    // Either branch opens in Chat.
    await left.getByRole("button", { name: "Open the source in Chat" }).click();
    await expect.poll(() => tab(page, "Chat").getAttribute("aria-selected"), patience).toBe("true");
    await expect.poll(() => page.getByTestId("session-id").textContent(), patience).toBe(source.sessionId);
    // The source is no fork: no notice, and Branches says so.
    expect(await page.getByRole("button", { name: "Compare branches" }).isVisible()).toBe(false);
    await tab(page, "Branches").click();
    await page.getByText("This session is not a fork.", { exact: false }).waitFor();
    expect(await page.getByRole("region", { name: "Source branch" }).count()).toBe(0);
  });

  it("a fork at a parked approval is decided in its own Chat; Branches shows each branch's decision", async () => {
    const tag = Date.now().toString(36);
    const source = await create(`/tool danger {"what":"cache ${tag}"}\n/reply done ${tag}`);
    const parked = await eventually(async () => {
      const all = await events(source.sessionId);
      return all.find((e) => e.type === "action.approval_requested");
    }, patience.timeout, "a parked call");
    const callId = parked.data["callId"] as string;
    expect((await fetch(`${base}/v1/session/${source.sessionId}/approvals/${callId}`, postJson({ decision: "approve" }))).status).toBe(200);
    await waited(source.sessionId, 1, "the source's approved turn");
    const branch = await fork(source.sessionId, parked.index);

    const page = await open(`/playground?sessionId=${branch.sessionId}`);
    const card = page.getByRole("article", { name: "Tool call danger" });
    await card.getByRole("button", { name: "Deny" }).click();
    await card.getByText("Denied", { exact: true }).first().waitFor();
    await waited(branch.sessionId, 1, "the fork's denied turn");

    await page.getByRole("button", { name: "Compare branches" }).click();
    const left = page.getByRole("region", { name: "Source branch" });
    const right = page.getByRole("region", { name: "Fork branch" });
    await left.getByText("approved", { exact: true }).waitFor();
    await left.getByText(`deleted cache ${tag}`, { exact: true }).waitFor();
    await right.getByText("denied", { exact: true }).first().waitFor();
    expect(await right.getByText(`deleted cache ${tag}`).count()).toBe(0);
    // The call itself is before the common point: shown once, above.
    await page.getByRole("region", { name: "Common point" }).getByText(`Common point: event ${parked.index}`).waitFor();
  });
});
