#!/usr/bin/env node
// `npm run lint` step: keeps the floors of docs/design/architecture.md. Every import of a file
// under src/ points to its own floor or one below, no two rooms (folders) import each other in a
// cycle, src/ imports nothing from adapters/, cli/, drivers/ or loader/, and cli/ reaches the core
// only through the package's public entries. Reads imports as text (static, dynamic, type-only and
// re-exports alike), so it needs no build.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ENTRIES } from "./entries.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));

/** The floors of src/, bottom first; a file's floor is the first whose prefix it starts with. */
export const FLOORS = [
  { name: "base", prefixes: ["src/base/"] },
  { name: "engine", prefixes: ["src/engine/"] },
  { name: "features", prefixes: ["src/features/"] },
  { name: "http", prefixes: ["src/http/"] },
  { name: "host", prefixes: ["src/host/"] },
  { name: "entries", prefixes: ["src/entries/", "src/index.ts", "src/testing.ts"] },
];

const floorOf = (file) => FLOORS.findIndex((floor) => floor.prefixes.some((prefix) => file.startsWith(prefix)));

/** A room is a floor's folder (`src/engine/sessions`) or, for its loose files, the floor itself. */
function roomOf(file) {
  const floor = FLOORS[floorOf(file)];
  if (!floor || floor.name === "entries" || floor.name === "host") return floor?.name ?? file;
  const parts = file.split("/");
  return parts.length > 3 ? `${parts[1]}/${parts[2]}` : parts[1];
}

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const IMPORT = /(?:^|[^\w.])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The repository-relative files `file` imports by relative path (comments skipped). */
function importsOf(file) {
  const text = readFileSync(join(root, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const targets = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    if (spec?.startsWith(".")) targets.push(relative(root, resolve(root, dirname(file), spec)));
  }
  return targets;
}

export function checkFloors() {
  const problems = [];
  const edges = new Map();
  for (const file of sourceFiles("src")) {
    const from = floorOf(file);
    if (from < 0) problems.push(`${file}: not on a floor (add its folder to FLOORS in scripts/check-floors.mjs)`);
    for (const target of importsOf(file)) {
      if (!target.startsWith("src/")) {
        if (target !== "package.json") problems.push(`${file} imports ${target}: src/ imports nothing outside it`);
        continue;
      }
      const to = floorOf(target);
      if (to > from) problems.push(`${file} imports ${target}: ${FLOORS[from].name} may not import ${FLOORS[to].name}, a floor above`);
      const a = roomOf(file);
      const b = roomOf(target);
      if (a !== b) {
        if (!edges.has(a)) edges.set(a, new Map());
        if (!edges.get(a).has(b)) edges.get(a).set(b, `${file} -> ${target}`);
      }
    }
  }
  for (const cycle of cycles(edges)) problems.push(`rooms in an import cycle: ${cycle.join(", ")}\n    ${cycle.flatMap((a) => [...edges.get(a) ?? []].filter(([b]) => cycle.includes(b)).map(([, why]) => why)).join("\n    ")}`);
  const entries = new Set(Object.values(ENTRIES));
  for (const file of sourceFiles("cli")) {
    for (const target of importsOf(file)) {
      if (target.startsWith("cli/") || target.startsWith("adapters/") || entries.has(target) || target === "package.json") continue;
      problems.push(`${file} imports ${target}: the CLI uses the package's public entries and adapters/ only`);
    }
  }
  return problems;
}

/** Strongly connected groups of more than one room (Tarjan). */
function cycles(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) === index.get(node)) {
      const group = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = checkFloors();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`check-floors: ${problems.length} problem(s); the floors are in docs/design/architecture.md`);
    process.exit(1);
  }
  console.log("check-floors: every import points down, no cycles between rooms");
}
