#!/usr/bin/env node
// `npm run build` (also `prepare`): compiles the package to dist/ (JavaScript + .d.ts) with tsc,
// after checking the exports map is in sync with scripts/entries.mjs. Runs on any Node npm
// runs on, because `prepare` does.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exportsMap } from "./entries.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: "inherit" });

run(process.execPath, ["scripts/sync-exports.mjs", "--check"]);
rmSync(new URL("../dist/", import.meta.url), { recursive: true, force: true });
run(fileURLToPath(new URL("../node_modules/.bin/tsc", import.meta.url)), ["-p", "tsconfig.build.json"]);
// tsc copies package.json (the version modules import it) to dist/. A full copy would make dist/
// a second package named agent-serve whose exports point nowhere; keep only what is read.
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
writeFileSync(new URL("../dist/package.json", import.meta.url), `${JSON.stringify({ type: "module", version: pkg.version }, null, 2)}\n`);

// Every `types` and `import` target of the exports map must now exist.
const missing = Object.values(exportsMap())
  .flatMap((target) => (typeof target === "string" ? [] : [target.types, target.import]))
  .filter((file) => !existsSync(new URL(`../${file}`, import.meta.url)));
if (missing.length > 0) {
  console.error(`agent-serve build: the exports map points at files the build did not write: ${missing.join(", ")}`);
  process.exit(1);
}
