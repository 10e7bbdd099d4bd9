#!/usr/bin/env node
// Writes `exports` in package.json and `paths` in tsconfig.json from scripts/entries.mjs.
// With --check it only reports drift (exit 1), as the build does before compiling.
import { readFileSync, writeFileSync } from "node:fs";
import { exportsMap, tsconfigPaths } from "./entries.mjs";

const check = process.argv.includes("--check");
const root = new URL("../", import.meta.url);
let drift = false;

update("package.json", (json) => {
  json.exports = exportsMap();
});
update("tsconfig.json", (json) => {
  json.compilerOptions.paths = tsconfigPaths();
});
if (drift && check) {
  console.error("agent-serve build: package.json exports or tsconfig.json paths differ from scripts/entries.mjs; run `npm run sync-exports`");
  process.exit(1);
}

function update(file, change) {
  const url = new URL(file, root);
  const before = readFileSync(url, "utf8");
  const json = JSON.parse(before);
  change(json);
  const after = `${JSON.stringify(json, null, 2)}\n`;
  if (after === before) return;
  drift = true;
  if (!check) {
    writeFileSync(url, after);
    console.log(`updated ${file}`);
  }
}
