/**
 * Debian's Chromium driven by playwright-core, for the playground's browser tests, plus a watch on
 * everything a page reports as broken (console errors, CSP violations, uncaught exceptions).
 */
import { accessSync, constants } from "node:fs";
import { type Browser, type BrowserContext, type Page, chromium } from "playwright-core";
import { afterEach, expect } from "vitest";

export const CHROMIUM_PATH = "/usr/bin/chromium";
/** CI installs Chromium at this path; elsewhere the browser suite is skipped and says why. */
export const hasChromium = isExecutable(CHROMIUM_PATH);

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // No sandbox: containers and CI runners seldom allow the user namespaces it needs.
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
  });
}

export interface PageProblems {
  /** Console errors and uncaught exceptions, minus the allowed ones. */
  readonly errors: string[];
  /** Tolerates console errors matching `pattern` (a test that provokes a 401 on purpose). */
  allow(pattern: RegExp): void;
}

/**
 * Records what the page reports as errors. Chromium logs CSP violations and failed loads as
 * console errors, so a page that breaks its own policy fails the test that watches it.
 */
export function watchProblems(page: Page): PageProblems {
  const errors: string[] = [];
  const allowed: RegExp[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = `${message.text()} (${message.location().url})`;
    if (!allowed.some((pattern) => pattern.test(text))) errors.push(`console: ${text}`);
  });
  page.on("pageerror", (error) => errors.push(`page: ${error.stack ?? error.message}`));
  return { errors, allow: (pattern) => allowed.push(pattern) };
}

export interface FreshPages {
  /** A page at `url` in a context of its own (own storage), its problems watched. */
  open(url: string): Promise<Page>;
  /** The open page's context and problems, until the test ends. */
  readonly context: BrowserContext | undefined;
  readonly problems: PageProblems | undefined;
}

/**
 * Pages for the tests of the `describe` it is called in, from `browser()`, waiting `timeoutMs` at
 * most per locator; after each test the context closes, and any problem a page reported fails it.
 */
export function freshPages(browser: () => Browser, timeoutMs: number): FreshPages {
  let context: BrowserContext | undefined;
  let problems: PageProblems | undefined;
  afterEach(async () => {
    await context?.close();
    context = undefined;
    const seen = problems?.errors ?? [];
    problems = undefined;
    expect(seen).toEqual([]);
  });
  return {
    async open(url) {
      context = await browser().newContext();
      context.setDefaultTimeout(timeoutMs);
      const page = await context.newPage();
      problems = watchProblems(page);
      await page.goto(url);
      return page;
    },
    get context() {
      return context;
    },
    get problems() {
      return problems;
    },
  };
}
