/**
 * The harness port on Node: `shell read edit grep glob ls` in the session workspace. Failures are
 * error results for the model (a path outside the workspace, a missing file), never exceptions.
 * @module
 */
import type { HarnessPort } from "../../src/base/ports/runtime.ts";
import { editTool, lsTool, readTool } from "./file-tools.ts";
import { globTool, grepTool } from "./search.ts";
import { type ShellOptions, shellTool } from "./shell.ts";
import { errorMessage } from "../../src/base/errors.ts";

export interface HarnessOptions extends ShellOptions {
  /** How long one `grep` may search. */
  grepTimeoutMs: number;
}

export function createHarnessPort(options: HarnessOptions): HarnessPort {
  return {
    async execute(name, input, context) {
      try {
        // SAFETY: `name` selects the member of HarnessInputs that `input` is (checked by parseHarnessInput)
        const anyInput = input as never;
        switch (name) {
          case "shell":
            return await shellTool(anyInput, context, options);
          case "read":
            return await readTool(context.cwd, anyInput);
          case "edit":
            return await editTool(context.cwd, anyInput);
          case "grep":
            return await grepTool(context.cwd, anyInput, context.signal, options.grepTimeoutMs);
          case "glob":
            return await globTool(context.cwd, anyInput);
          case "ls":
            return await lsTool(context.cwd, anyInput);
        }
        return { output: `unknown harness tool ${String(name)}`, isError: true };
      } catch (error) {
        return { output: `${name}: ${describe(error)}`, isError: true };
      }
    },
  };
}

function describe(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    const { code } = error;
    if (code === "ENOENT") return "no such file or folder";
    if (code === "EACCES" || code === "EPERM") return "permission denied";
    if (code === "EISDIR") return "is a folder";
    if (code === "ENOTDIR") return "not a folder";
  }
  return errorMessage(error);
}
