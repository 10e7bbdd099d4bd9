/**
 * The package's public entry points: one line per subpath. `node scripts/sync-exports.mjs`
 * writes them into `package.json` (`exports`) and `tsconfig.json` (`paths`); the build checks
 * both are in sync. Every subpath's source is compiled to `dist/` with its `.d.ts`.
 */
export const ENTRIES = {
  ".": "src/index.ts",
  "./testing": "src/testing.ts",
  "./tools": "src/entries/tools.ts",
  "./hooks": "src/entries/hooks.ts",
  "./memory": "src/entries/memory.ts",
  "./extensions": "src/entries/extensions.ts",
  "./artifacts": "src/entries/artifacts.ts",
  "./schedules": "src/entries/schedules.ts",
  "./evals": "src/entries/evals.ts",
  "./events": "src/entries/events.ts",
  "./inspect": "src/entries/inspect.ts",
  "./skills": "src/entries/skills.ts",
  "./connections": "src/entries/connections.ts",
  "./channels": "src/entries/channels.ts",
  "./channels/slack": "src/entries/channels/slack.ts",
  "./channels/github": "src/entries/channels/github.ts",
  "./storage": "src/entries/storage.ts",
  "./storage/sqlite": "drivers/sqlite/index.ts",
  "./storage/redis": "drivers/redis/index.ts",
  "./storage/postgres": "drivers/postgres/index.ts",
  "./node": "adapters/node.ts",
  "./bun": "adapters/bun.ts",
  "./deno": "adapters/deno.ts",
  "./cloudflare": "adapters/cloudflare.ts",
};

/**
 * The export condition that points at the TypeScript sources. Only the loader running from a
 * checkout (and `tsc` there, through `customConditions`) asks for it; an installed package
 * resolves `types` and `import` in `dist/`.
 */
export const SOURCE_CONDITION = "agent-serve-source";

/** The `exports` map of `package.json` for {@link ENTRIES}. */
export function exportsMap() {
  const map = {};
  for (const [subpath, source] of Object.entries(ENTRIES)) {
    const built = `./dist/${source.replace(/\.ts$/, "")}`;
    map[subpath] = { [SOURCE_CONDITION]: `./${source}`, types: `${built}.d.ts`, import: `${built}.js` };
  }
  map["./package.json"] = "./package.json";
  return map;
}

/** The `compilerOptions.paths` of `tsconfig.json`: examples and tests type-check against sources. */
export function tsconfigPaths() {
  const paths = {};
  for (const [subpath, source] of Object.entries(ENTRIES)) {
    paths[subpath === "." ? "agent-serve" : `agent-serve/${subpath.slice(2)}`] = [`./${source}`];
  }
  // Agent SDK projects in the checkout (test fixtures) type-check against these sources too.
  paths["@cursor/bdk"] = ["./src/index.ts"];
  paths["@cursor/bdk/*"] = ["./src/entries/*.ts"];
  return paths;
}
