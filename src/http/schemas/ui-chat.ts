/**
 * The request body the AI SDK's chat transport (`DefaultChatTransport`, behind `useChat`) posts:
 * the chat id and its UI messages. Only what the route reads is checked; the rest of each message
 * (ids, metadata, other parts) passes untouched.
 * @module
 */
import * as v from "valibot";

/**
 * A message part: text, or a tool part whose `approval` carries the user's answer to a tool
 * approval request (`state: "approval-responded"`, set by `useChat`'s `addToolApprovalResponse`).
 */
const part = v.looseObject({
  type: v.string(),
  text: v.optional(v.string()),
  state: v.optional(v.string()),
  approval: v.optional(
    v.looseObject({
      id: v.pipe(v.string(), v.minLength(1, "approval.id must be the approval request's id")),
      approved: v.optional(v.boolean("approval.approved must be true or false")),
    }),
  ),
});

export const uiChatBody = v.looseObject({
  id: v.pipe(v.string(), v.minLength(1, "id must be the chat id"), v.maxLength(200, "id is at most 200 characters")),
  messages: v.pipe(
    v.array(v.looseObject({ role: v.picklist(["system", "user", "assistant"]), parts: v.array(part) })),
    v.minLength(1, "messages must hold at least the user's message"),
  ),
  trigger: v.optional(v.picklist(["submit-message", "regenerate-message"])),
});

export type UiChatBody = v.InferOutput<typeof uiChatBody>;
