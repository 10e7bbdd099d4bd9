import { defineEvalConfig } from "agent-serve/evals";

export default defineEvalConfig({ maxConcurrency: 4, timeoutMs: 60_000 });
