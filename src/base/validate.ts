import { badRequest } from "./errors.ts";

/** The Standard Schema v1 surface the host relies on (valibot, zod and arktype implement it). */
export interface StandardSchema<Output = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
}

export interface ValidateOptions {
  /**
   * The message is the first issue's own, for schemas whose messages are whole sentences naming
   * the field; by default it reads `invalid <what> at <path>: <issue>`.
   */
  plain?: boolean;
}

/**
 * Validates (and transforms) `data` at the edge; issues become a 400 `invalid_request` with
 * `issues: [{path, message}]`. Checks `issues` rather than `value`, because valibot returns both
 * on failure (docs/design/foundation.md "Validation").
 */
export async function validate<Output>(
  data: unknown,
  schema: StandardSchema<Output>,
  what = "request body",
  options: ValidateOptions = {},
): Promise<Output> {
  const result = await schema["~standard"].validate(data);
  if (result.issues) {
    const issues = result.issues.map((issue) => ({ path: toPath(issue.path), message: issue.message }));
    const first = issues[0];
    const where = first?.path ? ` at ${first.path}` : "";
    const message = options.plain && first ? first.message : `invalid ${what}${where}: ${first?.message ?? "invalid"}`;
    throw badRequest(message, { issues });
  }
  return result.value;
}

function toPath(path: StandardIssue["path"]): string {
  if (!path) return "";
  return path.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".");
}
