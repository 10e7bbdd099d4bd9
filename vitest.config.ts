import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Real servers and child processes share two cores; keep file parallelism modest.
    maxWorkers: 2,
  },
});
