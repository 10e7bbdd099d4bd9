/**
 * What `npm install` in the checkout relies on (docs/design/packaging.md, "Installing the
 * checkout"): every dependency install script in the lock file is reviewed in `allowScripts`.
 * Reads the lock file.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as { allowScripts: Record<string, boolean> };
const lock = JSON.parse(await readFile(join(REPO, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; resolved?: string; link?: boolean; hasInstallScript?: boolean }>;
};
const locked = Object.entries(lock.packages)
  .filter(([path]) => path !== "")
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length), ...entry }));

describe("install scripts", () => {
  test("allowScripts has one entry per locked package with an install script: approved at its locked version, or denied by name", () => {
    const expected: Record<string, boolean> = {};
    for (const { name, version, hasInstallScript } of locked) {
      if (!hasInstallScript) continue;
      if (pkg.allowScripts[name] === false) expected[name] = false;
      else expected[`${name}@${version}`] = true;
    }
    // A new package with a script, or an approved one at a new version, shows here as missing.
    expect(pkg.allowScripts).toEqual(expected);
  });

  test("every locked package records the URL it was resolved from, which pinned approvals are checked against", () => {
    expect(locked.filter((entry) => !entry.link && !entry.resolved).map((entry) => entry.name)).toEqual([]);
  });
});
