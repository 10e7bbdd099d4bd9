/**
 * The shape of a `cloud` block (docs/guide/cloud-runtime.md "The agent"), the agent's or a
 * per-send one: `repos` (each `{url, startingRef?}`), `env` (`{NAME: value}`), `envVars`
 * (`{NAME: value}` or a list of names). Checked where it enters (project load, a send), so a bad
 * block never reaches a runner. Messages name the field, never a value (they may be secrets).
 * @module
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What is wrong with `value` as a cloud block; empty when it is good. */
export function cloudBlockProblems(value: unknown, where = "cloud"): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${where} must be an object {repos?, env?, envVars?}`];
  const problems: string[] = [];
  const block = value as Record<string, unknown>; // SAFETY: a non-null, non-array object; each member is checked below
  for (const key of Object.keys(block)) {
    if (key !== "repos" && key !== "env" && key !== "envVars") problems.push(`${where}.${key} is not a cloud option (repos, env, envVars)`);
  }
  if (block.repos !== undefined) {
    if (!Array.isArray(block.repos)) problems.push(`${where}.repos must be a list of {url, startingRef?}`);
    else {
      block.repos.forEach((repo: unknown, i) => {
        const r = repo as { url?: unknown; startingRef?: unknown } | null;
        if (typeof r !== "object" || r === null || typeof r.url !== "string" || r.url === "" || r.url.startsWith("-")) problems.push(`${where}.repos[${i}].url must be a repository URL or path`);
        else if (r.startingRef !== undefined && (typeof r.startingRef !== "string" || r.startingRef === "" || r.startingRef.startsWith("-"))) {
          problems.push(`${where}.repos[${i}].startingRef must be a branch, tag or commit`);
        }
      });
    }
  }
  problems.push(...variables(block.env, `${where}.env`, false));
  problems.push(...variables(block.envVars, `${where}.envVars`, true));
  return problems;
}

function variables(value: unknown, where: string, namesAllowed: boolean): string[] {
  if (value === undefined) return [];
  if (namesAllowed && Array.isArray(value)) {
    return value.every((name) => typeof name === "string" && NAME.test(name)) ? [] : [`${where} must list environment variable names`];
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${where} must be an object {NAME: value}${namesAllowed ? " or a list of names" : ""}`];
  const problems: string[] = [];
  for (const [name, v] of Object.entries(value)) {
    if (!NAME.test(name)) problems.push(`${where}: ${JSON.stringify(name)} is not an environment variable name`);
    else if (typeof v !== "string") problems.push(`${where}.${name} must be a string`);
  }
  return problems;
}
