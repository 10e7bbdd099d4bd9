/**
 * The miniflare tests' worker: `test/fixtures/cloudflare/worker.ts` bundled by esbuild as a
 * generated entry would be (no `node:*`, no `nodejs_compat`), run in workerd with both Durable
 * Object classes on SQLite storage persisted to a directory, so a test can restart it.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll } from "vitest";

export interface BundledWorker {
  dir: string;
  script: string;
  scriptPath: string;
  cleanup(): Promise<void>;
}

/** Bundles the fixture worker once per test file. */
export async function bundleFixtureWorker(): Promise<BundledWorker> {
  const dir = await mkdtemp(join(tmpdir(), "agent-serve-cf-"));
  const scriptPath = join(dir, "worker.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "fixtures/cloudflare/worker.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    outfile: scriptPath,
    logLevel: "error",
  });
  return { dir, script: await readFile(scriptPath, "utf8"), scriptPath, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export const BEARER = "cf-test-secret";

/** Starts workerd on the bundle with its Durable Objects stored under `persistDir`. */
export async function startWorker(bundle: BundledWorker, persistDir: string, bindings: Record<string, string> = { AGENT_SERVE_BEARER_TOKEN: BEARER }): Promise<Miniflare> {
  const mf = new Miniflare({
    // The bundle as the one module it is: with `modules: true` Miniflare would parse it for imports first (seconds).
    modules: [{ type: "ESModule", path: bundle.scriptPath, contents: bundle.script }],
    modulesRoot: bundle.dir,
    compatibilityDate: "2026-01-01",
    // Aborts request.signal when a client goes away, so a dropped stream stops following.
    compatibilityFlags: ["enable_request_signal"],
    durableObjects: {
      AGENT_SESSION: { className: "AgentSession", useSQLite: true },
      AGENT_COORDINATOR: { className: "AgentCoordinator", useSQLite: true },
    },
    durableObjectsPersist: persistDir,
    bindings,
  });
  await mf.ready;
  return mf;
}

/** The fixture worker one test file runs: `mf` changes on `restart`. */
export interface FileWorker {
  readonly mf: Miniflare;
  /** The folder its Durable Objects are persisted in. */
  readonly persist: string;
  /** Stops workerd and starts it again on the same persisted storage. */
  restart(): Promise<void>;
}

/**
 * Registers the `beforeAll`/`afterAll` of a test file that runs the fixture worker: bundled once,
 * started on storage persisted to a temporary folder (`prefix`), all of it removed after.
 */
export function fixtureWorkerForFile(prefix: string): FileWorker {
  let bundle: BundledWorker | undefined;
  let persist = "";
  let mf: Miniflare | undefined;
  beforeAll(async () => {
    bundle = await bundleFixtureWorker();
    persist = await mkdtemp(join(tmpdir(), prefix));
    mf = await startWorker(bundle, persist);
  }, 60_000);
  afterAll(async () => {
    await mf?.dispose();
    await bundle?.cleanup();
    if (persist) await rm(persist, { recursive: true, force: true });
  });
  return {
    get mf() {
      return mf!;
    },
    get persist() {
      return persist;
    },
    async restart() {
      await mf!.dispose();
      mf = await startWorker(bundle!, persist);
    },
  };
}
