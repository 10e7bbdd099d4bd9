/**
 * How services built before the session service start and find sessions. Tools and reminders
 * start turns, and turns run tools: that is the one cycle in an agent's service graph. The
 * composition (src/host/agent-runtime.ts) builds this entry first, hands it to those services, and
 * binds it to the session service once that exists; nothing calls it before then (turns and timers
 * start only after the agent is composed).
 * @module
 */
import { createError } from "../../base/errors.ts";
import type { SessionEntry } from "../../base/definitions/session-face.ts";

export interface BindableSessionEntry extends SessionEntry {
  bind(sessions: SessionEntry): void;
}

export function createSessionEntry(): BindableSessionEntry {
  let target: SessionEntry | undefined;
  const bound = (): SessionEntry => target ?? unbound();
  return {
    send: (...args) => bound().send(...args),
    followUp: (...args) => bound().followUp(...args),
    find: (...args) => bound().find(...args),
    bind(sessions) {
      if (target) throw createError("host", "the session entry is bound once");
      target = sessions;
    },
  };
}

function unbound(): never {
  throw createError("host", "a session was started before the agent's session service was built");
}
