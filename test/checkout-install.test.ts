/**
 * What `npm install` in the checkout relies on (docs/design/packaging.md, "Installing the
 * checkout"): every dependency install script in the lock file is reviewed in `allowScripts`, and
 * the engine warnings `.npmrc` keeps quiet are about packages the project's own Node 22 runs.
 * Reads the lock file; runs npm without the network.
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as { allowScripts: Record<string, boolean> };
const lock = JSON.parse(await readFile(join(REPO, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; link?: boolean; hasInstallScript?: boolean }>;
};
const locked = Object.entries(lock.packages)
  .filter(([path]) => path !== "")
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length), ...entry }));

/**
 * The versions whose install scripts were read (docs/design/packaging.md, "Install scripts").
 * `allowScripts` approves by name: a pinned approval is checked against the lock's `resolved` URLs,
 * which this project's lock does not record. So the pin lives here: a new version fails this test
 * until its script has been read and the version updated.
 */
const REVIEWED: Record<string, string> = { node: "22.23.3", bun: "1.4.5", deno: "2.9.6" };

describe("install scripts", () => {
  test("allowScripts names every locked package with an install script, approved or denied", () => {
    const scripted = [...new Set(locked.filter((entry) => entry.hasInstallScript).map((entry) => entry.name))].sort();
    expect(Object.keys(pkg.allowScripts).sort()).toEqual(scripted);
  });

  test("every approved script is the one reviewed: the locked version is the reviewed version", () => {
    const approved = Object.entries(pkg.allowScripts).filter(([, allowed]) => allowed).map(([name]) => name);
    expect(approved.sort()).toEqual(Object.keys(REVIEWED).sort());
    for (const name of approved) {
      const versions = locked.filter((entry) => entry.name === name && entry.hasInstallScript).map((entry) => entry.version);
      expect(versions, name).toEqual([REVIEWED[name]]);
    }
  });
});

const NODE = join(REPO, "node_modules", ".bin", "node");
const NPM_CLI = npmCli();
const MISSING = !existsSync(NODE)
  ? " (skipped: node_modules/.bin/node is missing: node@22's install script did not run)"
  : !NPM_CLI
    ? " (skipped: no npm on PATH)"
    : "";

test.skipIf(MISSING !== "")(`npm run by the project's Node finds every locked package's engines satisfied${MISSING}`, () => {
  // The same check npm makes on each install, against the Node that runs the project's code
  // rather than the one that runs npm. The checkout's .npmrc hides these warnings on Node 20.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  const result = spawnSync(
    NODE,
    [NPM_CLI!, "install", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=warn"],
    { cwd: REPO, env, encoding: "utf8", timeout: 60_000 },
  );
  expect(result.status, result.stderr).toBe(0);
  const unsupported = [...result.stderr.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((match) => match[1]);
  expect(unsupported).toEqual([]);
}, 60_000);

/** npm's own entry script behind the `npm` on PATH. */
function npmCli(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = join(dir, "npm");
    if (!dir || !existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    return real.endsWith(".js") ? real : undefined;
  }
  return undefined;
}
