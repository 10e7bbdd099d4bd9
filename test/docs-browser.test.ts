/**
 * The docs site in a real browser (Chromium) at a phone's size and a desk's: nothing overflows
 * the page sideways, the landing page introduces the project rather than repeating the navigation,
 * the navigation and search are reachable, the current page is marked, and a search lands on
 * results that link to the page. Screenshots are kept under test/artifacts/docs/.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { renderDocsSite } from "../loader/docs-site.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost } from "../src/host/types.ts";
import { CHROMIUM_PATH, hasChromium, launchChromium, watchProblems } from "./_browser.ts";
import { helloOptions, project } from "./_harness.ts";

const ARTIFACTS = fileURLToPath(new URL("./artifacts/docs/", import.meta.url));
const title = hasChromium ? "docs site in Chromium" : `docs site in Chromium (skipped: no Chromium at ${CHROMIUM_PATH})`;

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser;
  let host: AgentHost;
  let server: NodeServer;

  beforeAll(async () => {
    host = createHost(helloOptions({ agents: [{ slug: "hello", project: project(), storage: createMemoryStorage() }], docs: await renderDocsSite() }));
    [browser, server] = await Promise.all([launchChromium(), serveNode(host, { port: 0, silent: true })]);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await server?.close(true);
  });

  const sizes = { phone: { width: 390, height: 844 }, desk: { width: 1280, height: 800 } } as const;

  for (const [name, viewport] of Object.entries(sizes)) {
    it(`on a ${name}: the landing page introduces agent-serve instead of repeating the navigation (issue 35)`, async () => {
      const context = await browser.newContext({ viewport });
      try {
        const page = await context.newPage();
        const problems = watchProblems(page);
        await page.goto(`${server.url}/docs`);
        await expectFits(page);
        const main = page.getByRole("main");
        const intro = main.getByRole("heading", { level: 1, name: "agent-serve" });
        await intro.waitFor();
        // The first screen shows the introduction: on a phone the nav comes after it.
        expect((await intro.boundingBox())!.y).toBeLessThan(viewport.height / 4);
        expect(await main.getByRole("heading", { level: 2 }).allInnerTexts()).toEqual(["Start in two commands", "A session is a stream of events", "Where next"]);
        const blocks = (await main.locator("pre").allInnerTexts()).map((text) => text.trim());
        expect(blocks).toContain("npm install\nnpx agent-serve serve examples/hello");
        const stream = blocks.find((text) => text.startsWith('{"type":"session.started"'));
        expect(stream?.split("\n").map((line) => (JSON.parse(line) as { type: string }).type)).toContain("message.completed");

        // The body is not the nav again: few of the nav's links, none of its section headings.
        const navLinks = await page.getByRole("navigation").getByRole("link").evaluateAll((links) => links.map((link) => link.getAttribute("href")));
        const mainLinks = await main.getByRole("link").evaluateAll((links) => links.map((link) => link.getAttribute("href")));
        expect(navLinks.length).toBeGreaterThan(20);
        expect(mainLinks.filter((href) => navLinks.includes(href)).length).toBeLessThan(navLinks.length / 2);
        expect(await main.getByRole("heading", { name: /^(Guide|Design notes|Reference)$/ }).count()).toBe(0);
        for (const name of ["Getting started", "HTTP API", "routes"]) expect(await main.getByRole("link", { name, exact: true }).count(), name).toBe(1);
        await page.screenshot({ path: join(ARTIFACTS, `landing-${name}.png`), fullPage: true });

        await main.getByRole("link", { name: "HTTP API", exact: true }).click();
        await page.waitForURL(/\/docs\/guide\/http-api$/);
        expect(problems.errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it(`on a ${name}: no sideways overflow, the current page marked, search finds a page`, async () => {
      const context = await browser.newContext({ viewport });
      try {
        const page = await context.newPage();
        const problems = watchProblems(page);
        await page.goto(`${server.url}/docs/reference/routes`);
        await expectFits(page);
        const current = page.locator('a[aria-current="page"]');
        expect(await current.count()).toBe(1);
        expect(await current.getAttribute("href")).toBe("/docs/reference/routes");
        // The widest content (the route tables) scrolls inside its own box, not the page.
        await page.getByRole("heading", { name: "Host-level routes" }).waitFor();
        await page.screenshot({ path: join(ARTIFACTS, `routes-${name}.png`), fullPage: true });

        const search = page.getByRole("search").getByRole("searchbox");
        await search.scrollIntoViewIfNeeded();
        await search.fill("continuation token");
        await search.press("Enter");
        await page.waitForURL(/\/docs\/search\?q=/);
        await expectFits(page);
        const first = page.getByRole("main").getByRole("link").first();
        await first.waitFor();
        const href = await first.getAttribute("href");
        expect(href).toMatch(/^\/docs\//);
        await page.screenshot({ path: join(ARTIFACTS, `search-${name}.png`), fullPage: true });
        await first.click();
        await page.waitForURL(new RegExp(`${href!.replace(/[?]/g, "\\$&")}$`));
        await expectFits(page);
        expect(problems.errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});

/** The page is no wider than the window: nothing makes a reader scroll sideways. */
async function expectFits(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(scroll, `page ${page.url()} is ${scroll}px wide in a ${width}px window`).toBeLessThanOrEqual(width);
}
