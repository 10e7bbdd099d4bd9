/**
 * Opens a URL in the user's browser for a flow that needs one (`mcp oauth`): the command in
 * `BROWSER` when set (given the URL as its one argument), else the platform's opener. Best
 * effort: the URL is always printed too, and a failure to open changes nothing.
 * @module
 */
import { spawn } from "node:child_process";

/** Starts the browser on `url`; false when there is nothing to start. */
export function openBrowser(url: string, env: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): boolean {
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : platform === "darwin"
      ? ["open", [url]]
      : platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true, env: env as NodeJS.ProcessEnv });
    child.on("error", () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
