/**
 * Debian's Chromium driven by playwright-core, for the playground's browser tests, plus a watch on
 * everything a page reports as broken (console errors, CSP violations, uncaught exceptions).
 */
import { accessSync, constants } from "node:fs";
import { type Browser, type Page, chromium } from "playwright-core";

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
