import * as v from "valibot";

export const toolCallBody = v.strictObject({
  input: v.optional(v.unknown()),
  sessionId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
});

export const approvalBody = v.strictObject({
  decision: v.picklist(["approve", "deny"], 'decision must be "approve" or "deny"'),
});
