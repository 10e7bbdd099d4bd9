/**
 * Start-up check that a state root can take writes. A read-only root still serves reads (events,
 * streams, cost) while writes answer 503 `storage_unavailable` (docs/design/faults.md); the
 * operator hears about it at start-up, not from the first failed request.
 * @module
 */
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { dirname } from "node:path";

/** Why `root` (or, while it does not exist yet, its nearest existing parent) cannot be written, or undefined. */
export async function stateRootProblem(root: string): Promise<string | undefined> {
  let dir = root;
  for (;;) {
    try {
      await access(dir, constants.W_OK);
      return undefined;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ENOENT" && dirname(dir) !== dir) {
        dir = dirname(dir);
        continue;
      }
      return typeof code === "string" ? code : String(error);
    }
  }
}
