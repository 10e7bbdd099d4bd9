/**
 * A channel's `send`, derived once from `lookup`, `followUp` and `create` for every placement
 * strategy (docs/guide/agent-projects.md "Sending into sessions"): whichever strategy wraps the
 * local service, the follow-up or create it ends in goes where that strategy sends it.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { Sessions } from "../../base/definitions/session-face.ts";
import type { SendOptions, SendResult } from "../../base/definitions/sessions.ts";

/**
 * Continues the session the continuation key points at, or starts one. The built-in HTTP channel
 * rotates its opaque token on every accepted follow-up; other channels keep their own keys
 * (`pr:owner/repo#1`) stable.
 */
export async function channelSend(
  sessions: Pick<Sessions, "lookup" | "followUp" | "create">,
  record: (sessionId: string) => Promise<{ owner: AuthContext } | undefined>,
  channel: string,
  message: string,
  options: SendOptions = {},
): Promise<SendResult> {
  const auth = options.auth ?? channelPrincipal(channel);
  const key = options.continuationToken;
  const existing = key === undefined ? undefined : await sessions.lookup(channel, key);
  if (existing && key !== undefined) {
    const found = await record(existing);
    if (found) {
      const continuationToken = await sessions.followUp(existing, {
        message,
        auth: found.owner.principalId === auth.principalId ? auth : found.owner,
        continuationToken: key,
        ...(options.state === undefined ? {} : { state: options.state }),
        ...(options.admission ? { admission: options.admission } : {}),
        rotate: channel === "http",
        ...(options.workspaceFiles === undefined ? {} : { workspaceFiles: options.workspaceFiles }),
        ...(options.workspaceDir === undefined ? {} : { workspaceDir: options.workspaceDir }),
        ...(options.cloud === undefined ? {} : { cloud: options.cloud }),
        ...(options.clientTools === undefined ? {} : { clientTools: options.clientTools }),
      });
      return { sessionId: existing, continuationToken, created: false };
    }
  }
  const created = await sessions.create({
    message,
    auth,
    channel,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.state === undefined ? {} : { state: options.state }),
    ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
    ...(key === undefined || channel === "http" ? {} : { continuationToken: key }),
    ...(options.workspaceFiles === undefined ? {} : { workspaceFiles: options.workspaceFiles }),
    ...(options.workspaceDir === undefined ? {} : { workspaceDir: options.workspaceDir }),
    ...(options.cloud === undefined ? {} : { cloud: options.cloud }),
    ...(options.clientTools === undefined ? {} : { clientTools: options.clientTools }),
  });
  return { sessionId: created.sessionId, continuationToken: created.continuationToken, created: true };
}

const channelPrincipal = (channel: string): AuthContext => ({
  authenticator: "channel",
  principalId: `channel:${channel}`,
  principalType: "service",
});
