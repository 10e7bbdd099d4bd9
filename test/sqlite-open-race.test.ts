/**
 * Processes that open one new state file at the same moment (a `serve` and a CLI command, two
 * hosts on one state root) all get a working store: switching a new file to WAL makes each want
 * to write it, and SQLite refuses one of them at once with "database is locked" instead of
 * waiting, which the driver now waits out (drivers/sqlite/busy.ts). Before, about one open in
 * fifteen failed this way.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, test } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-open-race-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const driver = pathToFileURL(fileURLToPath(new URL("../drivers/sqlite/index.ts", import.meta.url))).href;

/** Opens the file in `argv[2]` at wall time `argv[3]`, writes one record, closes; prints ok or why not. */
const CHILD = `
import { createSqliteStorage } from ${JSON.stringify(driver)};
const [path, at] = process.argv.slice(2);
const wait = Number(at) - Date.now();
if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
try {
  const storage = createSqliteStorage({ path });
  await storage.set("opened/" + process.pid, "yes");
  await storage.close();
  process.stdout.write("ok");
} catch (error) {
  process.stdout.write("failed: " + error.message);
}
`;

function open(script: string, path: string, at: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--no-warnings", script, path, String(at)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.once("error", reject);
    child.once("exit", () => resolve(out));
  });
}

test("four processes opening one new sqlite file at once all open it, and every write is there", async () => {
  const script = join(scratch, "child.ts");
  writeFileSync(script, CHILD);
  for (let round = 0; round < 8; round++) {
    const path = join(scratch, `round-${round}`, "state.db");
    // Past the children's start-up, so they reach the file together.
    const at = Date.now() + 800;
    const results = await Promise.all(Array.from({ length: 4 }, () => open(script, path, at)));
    expect(results, `round ${round}`).toEqual(["ok", "ok", "ok", "ok"]);
    const storage = createSqliteStorage({ path });
    try {
      expect(await storage.list("opened/")).toHaveLength(4);
    } finally {
      await storage.close();
    }
  }
}, 60_000);
