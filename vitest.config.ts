import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { ENTRIES } from "./scripts/entries.mjs";

export default defineConfig({
  // Examples import `agent-serve` by name, as users do; tests run them on the sources.
  resolve: {
    alias: Object.entries(ENTRIES).map(([subpath, source]) => ({
      find: new RegExp(`^agent-serve${subpath === "." ? "" : subpath.slice(1)}$`),
      replacement: fileURLToPath(new URL(source, import.meta.url)),
    })),
  },
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Real servers and child processes share two cores; keep file parallelism modest.
    maxWorkers: 2,
  },
});
