/**
 * Where `install-skills --from` gets third-party skills (docs/guide/cli.md "install-skills"): a
 * local folder as is; a git URL cloned with the user's own `git` (shallow); an npm package
 * fetched with the user's own `npm pack` and unpacked with `tar`. Fetched copies go to a temporary
 * folder the caller removes with `cleanup`.
 * @module
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { CommandError, errorMessage } from "../io.ts";
import type { CliIo } from "../io.ts";

const run = promisify(execFile);

export interface SkillSource {
  /** The folder to look for skills in. */
  folder: string;
  kind: "folder" | "git" | "npm";
  cleanup(): void;
}

const GIT_URL = /^(git@|git\+|git:\/\/|ssh:\/\/|file:\/\/|https?:\/\/)/;
const NPM_SPEC = /^(npm:)?(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@\S+)?$/i;

export async function openSkillSource(from: string, io: CliIo): Promise<SkillSource> {
  const local = resolve(io.cwd, from);
  if (existsSync(local)) {
    if (!statSync(local).isDirectory()) throw new CommandError(`${local} is a file: --from takes a folder, a git URL or an npm package`);
    return { folder: local, kind: "folder", cleanup: () => {} };
  }
  const isGit = GIT_URL.test(from);
  if (!isGit && !NPM_SPEC.test(from)) throw new CommandError(`${from} is neither a folder, a git URL nor an npm package name`);
  const temp = mkdtempSync(join(tmpdir(), "agent-serve-skills-"));
  const cleanup = (): void => rmSync(temp, { recursive: true, force: true });
  const env = io.env as NodeJS.ProcessEnv;
  try {
    if (isGit) {
      const into = join(temp, "repo");
      await run("git", ["clone", "--depth", "1", "--quiet", from.replace(/^git\+/, ""), into], { env, cwd: temp }).catch((error: unknown) => {
        throw new CommandError(`git clone ${from} failed: ${failure(error)} (check the URL and your access; git must be installed)`);
      });
      return { folder: skillsFolder(into), kind: "git", cleanup };
    }
    const spec = from.replace(/^npm:/, "");
    const packed = await run("npm", ["pack", spec, "--pack-destination", temp, "--silent"], { env, cwd: temp }).catch((error: unknown) => {
      throw new CommandError(`npm pack ${spec} failed: ${failure(error)} (is it a published package, or a folder that does not exist?)`);
    });
    const tarball = join(temp, packed.stdout.trim().split("\n").at(-1) ?? "");
    await run("tar", ["-xzf", tarball, "-C", temp], { env });
    return { folder: skillsFolder(join(temp, "package")), kind: "npm", cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

// --- internals ---

/** A repository or package holds its skills at its root or in `skills/`. */
function skillsFolder(root: string): string {
  const hasSkillAt = (folder: string): boolean =>
    existsSync(join(folder, "SKILL.md")) || readdirSync(folder, { withFileTypes: true }).some((e) => e.isDirectory() && existsSync(join(folder, e.name, "SKILL.md")));
  const nested = join(root, "skills");
  return !hasSkillAt(root) && existsSync(nested) && statSync(nested).isDirectory() ? nested : root;
}

function failure(error: unknown): string {
  const stderr = typeof error === "object" && error !== null && "stderr" in error ? String((error as { stderr: unknown }).stderr).trim() : "";
  return stderr.split("\n").at(-1) || errorMessage(error);
}
