#!/usr/bin/env node
// `npm run lint` step: every `docs/...md` a source comment cites exists, so a reader who follows a
// "why" to the project's own docs finds it (docs/design/architecture.md).
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const FOLDERS = ["src", "adapters", "drivers", "loader", "cli", "scripts", "bench", "test"];
const CITATION = /docs\/(?:design|guide)\/[\w.-]+\.md/g;

function* files(dir) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "fixtures") yield* files(path);
    } else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) yield path;
  }
}

const missing = [];
for (const folder of FOLDERS) {
  if (!existsSync(join(root, folder))) continue;
  for (const file of files(folder)) {
    for (const citation of new Set(readFileSync(join(root, file), "utf8").match(CITATION) ?? [])) {
      if (!existsSync(join(root, citation))) missing.push(`${file} cites ${citation}, which does not exist`);
    }
  }
}
for (const line of missing) console.error(line);
if (missing.length > 0) process.exit(1);
console.log("check-doc-citations: every cited document exists");
