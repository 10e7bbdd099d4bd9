import pkg from "../package.json" with { type: "json" };
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";

/** The package version, as in `package.json`. */
export const VERSION: string = pkg.version;

/** `agent-serve version`: prints the package version. */
export function versionCommand(io: CliIo): number {
  io.stdout.write(`${VERSION}\n`);
  return EXIT_OK;
}
