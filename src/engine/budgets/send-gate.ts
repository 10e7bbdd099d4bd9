/**
 * Sends refused while a budget is used up (docs/guide/budgets.md "What happens"): the session face
 * with its three ways in (create, follow-up, a channel's send) checked first, so every caller (the
 * HTTP routes, channels, schedules, evals) answers 429 `budget_exceeded` before anything is
 * written. Everything else passes through unchanged.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { Sessions } from "../../base/definitions/session-face.ts";
import type { CreateSessionInput, FollowUpInput, SendOptions, SendResult, SessionRecord } from "../../base/definitions/sessions.ts";
import type { BudgetGate } from "./gate.ts";

export function gateSends(sessions: Sessions, gate: Pick<BudgetGate, "checkSend">): Sessions {
  const create = async (input: CreateSessionInput): Promise<SessionRecord> => {
    await gate.checkSend({ principalId: input.auth.principalId });
    return sessions.create(input);
  };
  const followUp = async (sessionId: string, input: FollowUpInput): Promise<string> => {
    await gate.checkSend({ sessionId, principalId: input.auth.principalId });
    return sessions.followUp(sessionId, input);
  };
  const send = async (channel: string, message: string, options: SendOptions = {}): Promise<SendResult> => {
    // The principal a channel's send runs as when it names none (../sessions/channel-send.ts).
    const sender: AuthContext = options.auth ?? { authenticator: "channel", principalId: `channel:${channel}`, principalType: "service" };
    const sessionId = options.continuationToken === undefined ? undefined : await sessions.lookup(channel, options.continuationToken);
    // A send into an existing session runs its turn as the session's owner, whose budget the
    // turn spends: checked against the same (docs/design/budgets.md "Sends").
    const owner = sessionId === undefined ? undefined : await ownerOf(sessionId, sender);
    await gate.checkSend(sessionId !== undefined && owner !== undefined ? { sessionId, principalId: owner } : { principalId: sender.principalId });
    return sessions.send(channel, message, options);
  };
  /** The owner's principal, or undefined when the session is gone (the send then starts one). */
  const ownerOf = (sessionId: string, sender: AuthContext): Promise<string | undefined> =>
    sessions.readable(sessionId, { auth: sender, wide: true }).then(
      (record) => record.owner.principalId,
      () => undefined,
    );
  const gated: Record<PropertyKey, unknown> = { create, followUp, send };
  return new Proxy(sessions, {
    get(target, property) {
      if (Object.hasOwn(gated, property)) return gated[property];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
