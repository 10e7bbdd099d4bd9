/**
 * Validation of `reminders.create(...)` input, shared by host code and the model-facing tool,
 * through the schema in ./schema.ts. Failures are `HTTPError` 400 `invalid_request`
 * whose message is the schema's sentence, which the tool turns into an error result.
 * @module
 */
import { validate } from "../../base/validate.ts";
import { type CheckedReminderInput, reminderInputSchema } from "./schema.ts";

export type CheckedInput = CheckedReminderInput;

export interface CheckOptions {
  /** Shortest `every` accepted. @default 1000 */
  minEveryMs?: number;
}

export function checkReminderInput(input: unknown, options: CheckOptions = {}): Promise<CheckedInput> {
  return validate(input, reminderInputSchema(options), "reminder input", { plain: true });
}
