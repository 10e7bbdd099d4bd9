/**
 * The local sandbox of `local.sandbox: true`: bubblewrap (`bwrap`, Debian package `bubblewrap`).
 * A sandboxed command sees a read-only system (`/usr`, the library folders, a few files of
 * `/etc`), a private `/tmp`, `/proc` and `/dev`, and its workspace read-write; nothing else of
 * the host's filesystem (no home, no state root, no project). It has no network, a clean
 * environment and its own PID namespace, and dies with its parent.
 * @module
 */
import { spawn } from "node:child_process";
import { lstatSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type SandboxProbe = { ok: true; argv: (cwd: string) => string[] } | { ok: false; reason: string };

const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
const ETC_FILES = [
  "/etc/alternatives",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/ld.so.cache",
  "/etc/localtime",
  "/etc/mime.types",
];
const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const probes = new Map<string, Promise<SandboxProbe>>();

/**
 * Whether `command` (a bwrap binary, found on PATH when bare) can run a sandboxed command here;
 * probed once per command and process. A bwrap that exists but cannot create namespaces (a
 * container without user namespaces) is not a sandbox.
 */
export function probeSandbox(command = "bwrap"): Promise<SandboxProbe> {
  let probe = probes.get(command);
  if (!probe) probes.set(command, (probe = runProbe(command)));
  return probe;
}

/** The message of a shell call refused because no sandbox is available. */
export function sandboxUnavailable(reason: string): string {
  return `local.sandbox is on, but no sandbox is available (${reason}); the command was not run. Install bubblewrap (apt-get install bubblewrap) or turn local.sandbox off.`;
}

// --- internals ---

async function runProbe(command: string): Promise<SandboxProbe> {
  const argv = (cwd: string): string[] => [command, ...bwrapArgs(cwd)];
  const dir = await mkdtemp(join(tmpdir(), "agent-serve-sandbox-probe-"));
  try {
    const [file, ...args] = argv(dir);
    const result = await run(file!, [...args, "sh", "-c", "echo ok > probe && cat probe"]);
    if (result.code === 0 && result.stdout.trim() === "ok") return { ok: true, argv };
    return { ok: false, reason: result.error ?? `${command} failed: ${(result.stderr.trim() || `exit code ${result.code}`).slice(0, 300)}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function bwrapArgs(cwd: string): string[] {
  const args = ["--die-with-parent", "--new-session", "--unshare-all", "--clearenv"];
  for (const dir of SYSTEM_DIRS) {
    const kind = entryKind(dir);
    if (kind === "symlink") args.push("--symlink", readlinkSync(dir), dir);
    else if (kind === "dir") args.push("--ro-bind", dir, dir);
  }
  for (const file of ETC_FILES) args.push("--ro-bind-try", file, file);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  args.push("--bind", cwd, cwd, "--chdir", cwd);
  args.push("--setenv", "PATH", PATH, "--setenv", "HOME", cwd, "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8");
  return args;
}

function entryKind(path: string): "symlink" | "dir" | undefined {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? "symlink" : stat.isDirectory() ? "dir" : undefined;
  } catch {
    return undefined;
  }
}

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string; error?: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr, error: error.code === "ENOENT" ? `${file} is not installed` : error.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
