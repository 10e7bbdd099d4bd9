/**
 * The docs site in a real browser (Chromium) at a phone's size and a desk's: nothing overflows
 * the page sideways, the navigation and search are reachable, the current page is marked, and a
 * search lands on results that link to the page. Screenshots are kept under test/artifacts/docs/.
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
