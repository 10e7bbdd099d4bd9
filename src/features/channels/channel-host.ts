/**
 * The custom channels of one mounted agent at run time: the services their code receives
 * (`send`, `getSession`, `receive`, `callTool`, ...), their lifecycle (`onStart` once mounted,
 * `onStop` and `waitUntil` work on drain) and the durable delivery of their events
 * (docs/guide/channels.md).
 * @module
 */
import { HTTPError, notFound } from "../../base/errors.ts";
import { cloudBlockProblems } from "../../engine/harness/cloud-block.ts";
import type { AuthContext } from "../../base/auth.ts";
import type { EventLogView } from "../../base/events/log-view.ts";
import type { Sessions } from "../../base/definitions/session-face.ts";
import type { ApprovalDecisions, SessionRecordsView, TurnActivity } from "../../base/definitions/sessions.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import type { ToolContextServices } from "../../engine/turns/tool-context.ts";
import type { HostLogger } from "../../base/logging.ts";
import { acceptedTurn, waitForTurn } from "./completion.ts";
import { ChannelDelivery } from "./delivery.ts";
import { HTTP_CHANNEL, type TransformedMessage, applyOnMessage } from "./http-channel.ts";
import type {
  ChannelDefinition,
  ChannelSendOptions,
  ChannelServices,
  ChannelSession,
  ChannelSessionHandle,
  ChannelSessionUrls,
  ChannelStartContext,
  ChannelState,
  ChannelToolResult,
  HttpChannelMessage,
} from "../../base/definitions/channels.ts";

// The composition names the HTTP channel through the channel host.
export { HTTP_CHANNEL } from "./http-channel.ts";

export interface ChannelHostDeps {
  /** `bot/channels/<id>.ts` by id (the loader's `ProjectDefinition.channels`). */
  definitions: Record<string, ChannelDefinition>;
  /** `/<slug>` in multi mode, `` in single mode. */
  basePath: string;
  sessions: Sessions;
  store: SessionRecordsView;
  log: EventLogView;
  controller: TurnActivity;
  approvals: ApprovalDecisions;
  toolServices: ToolContextServices;
  /** A direct server-tool call (as `POST /v1/tools/:name`), as the session's owner when `sessionId` is given. */
  callTool(name: string, input: unknown, sessionId: string | undefined): Promise<ChannelToolResult>;
  storage: Pick<StorageDriver, "get" | "set" | "list">;
  logger: HostLogger;
  /** Delays between attempts of a throwing events handler. @default about 1, 2, 4, 8 and 16 s */
  retryDelaysMs?: readonly number[];
  /** Why a send with `cloud` is refused for this agent (a `tools` allowlist), if it is. */
  cloudRefusal?: string;
}

/** Per-call facts a route handler adds: the request's origin for links, the principal sessions default to. */
export interface ServiceScope {
  origin?: string;
  auth?: AuthContext;
}

export class ChannelHost {
  readonly #deps: ChannelHostDeps;
  readonly #definitions: Map<string, ChannelDefinition>;
  readonly #delivery: ChannelDelivery;
  readonly #background = new Set<Promise<unknown>>();
  #started: Promise<void> | undefined;

  constructor(deps: ChannelHostDeps) {
    this.#deps = deps;
    this.#definitions = new Map(Object.entries(deps.definitions));
    const withEvents = new Map([...this.#definitions].filter(([, definition]) => definition.events !== undefined));
    this.#delivery = new ChannelDelivery({
      channels: withEvents,
      log: deps.log,
      storage: deps.storage,
      session: async (sessionId) => deps.store.get(sessionId),
      ownerOfNew: (channel) => channel,
      saveState: async (sessionId, changes) => {
        await deps.store.update(sessionId, (record) => {
          const state = { ...record.state };
          for (const [key, value] of Object.entries(changes)) {
            if (value === undefined) delete state[key];
            else state[key] = value;
          }
          record.state = state;
        });
      },
      context: (channelId) => this.services(channelId),
      delivers: (sessionId) => deps.sessions.isHere(sessionId),
      logger: deps.logger,
      ...(deps.retryDelaysMs ? { retryDelaysMs: deps.retryDelaysMs } : {}),
    });
    // Built before start-up recovery runs: what recovery appends to a channel's session is noted
    // now and delivered at `start` (docs/design/channels.md "Delivery").
    this.#delivery.watch();
  }

  /** Channel ids with a definition, sorted (`http` only when overridden). */
  get ids(): string[] {
    return [...this.#definitions.keys()].sort();
  }

  definition(channelId: string): ChannelDefinition | undefined {
    return this.#definitions.get(channelId);
  }

  /** Resumes delivery left unfinished by a previous process, then runs each `onStart`. */
  start(): Promise<void> {
    return (this.#started ??= (async () => {
      await this.#delivery.start();
      for (const [channelId, definition] of this.#definitions) {
        const onStart = definition.onStart;
        if (typeof onStart !== "function") continue;
        // Not awaited by start-up: a channel that connects somewhere (a socket) must not hold the
        // host's readiness; it is tracked like `waitUntil` work and awaited on drain.
        this.#track(
          Promise.resolve()
            .then(() => onStart.call(definition, this.#startContext(channelId)))
            .catch((error: unknown) => this.#deps.logger.error(`channel ${channelId} onStart failed`, error)),
        );
      }
    })());
  }

  /** On drain: `onStop` of each channel, then `waitUntil` work (up to `timeoutMs`), then delivery in flight. */
  async close(timeoutMs = 10_000): Promise<void> {
    for (const [channelId, definition] of this.#definitions) {
      if (typeof definition.onStop !== "function") continue;
      try {
        await definition.onStop();
      } catch (error) {
        this.#deps.logger.error(`channel ${channelId} onStop failed`, error);
      }
    }
    const deadline = Date.now() + timeoutMs;
    while (this.#background.size > 0 && Date.now() < deadline) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
      await Promise.race([Promise.allSettled(this.#background), late]);
      clearTimeout(timer);
    }
    if (this.#background.size > 0) this.#deps.logger.warn(`${this.#background.size} channel waitUntil task(s) still running at drain; abandoned`);
    await this.#delivery.close(Math.max(0, deadline - Date.now()));
  }

  waitUntil(promise: Promise<unknown>): void {
    this.#track(promise.catch((error: unknown) => this.#deps.logger.error("channel waitUntil work failed", error)));
  }

  /** The services channel code of `channelId` receives. */
  services(channelId: string, scope: ServiceScope = {}): ChannelServices {
    const deps = this.#deps;
    return {
      channel: { id: channelId },
      send: (message, options) => this.send(channelId, message, options, scope),
      getSession: (sessionId) => this.getSession(channelId, sessionId),
      receive: (channel, input) => {
        const target = typeof channel === "string" ? channel : this.#idOf(channel);
        const { message, ...options } = input;
        return this.send(target, message, options, scope);
      },
      callTool: (name, input, options) => deps.callTool(name, input ?? {}, options?.sessionId),
      host: deps.toolServices.host,
      artifacts: deps.toolServices.artifacts(),
      waitUntil: (promise) => this.waitUntil(promise),
      logger: deps.logger,
    };
  }

  /** Starts or continues a session of `channelId`; resolves once the message is accepted. */
  async send(channelId: string, message: string, options: ChannelSendOptions = {}, scope: ServiceScope = {}): Promise<ChannelSessionHandle> {
    const { sessions, store, log } = this.#deps;
    if (typeof message !== "string" || message.length === 0) throw new TypeError("[agent-serve] [channels] send needs a non-empty message");
    if (options.cloud !== undefined) {
      // docs/guide/cloud-runtime.md "Hybrid agents": an allowlist works only with the local runtime.
      if (this.#deps.cloudRefusal) throw new HTTPError({ status: 400, code: "cloud_send_refused", message: this.#deps.cloudRefusal });
      const problems = cloudBlockProblems(options.cloud, "send's cloud");
      if (problems.length > 0) throw new HTTPError({ status: 400, code: "invalid_cloud", message: problems.join("; ") });
    }
    const key = options.continuationToken;
    const existing = key === undefined ? undefined : await store.findByToken(channelId, key);
    const from = existing === undefined ? 0 : await log.length(existing);
    const auth = options.auth ?? scope.auth;
    // A continued session merges `state` into its own with the message; a new one starts from the defaults.
    const startState = existing === undefined ? { ...this.#definitions.get(channelId)?.state, ...options.state } : { ...options.state };
    const sent = await sessions.send(channelId, message, {
      ...(key === undefined ? {} : { continuationToken: key }),
      ...(options.admission ? { admission: options.admission } : {}),
      ...(auth ? { auth } : {}),
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(Object.keys(startState).length === 0 ? {} : { state: startState }),
      ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
      ...(options.mode ? { mode: options.mode } : {}),
      ...(options.workspaceFiles ? { workspaceFiles: options.workspaceFiles } : {}),
      ...(options.workspaceDir === undefined ? {} : { workspaceDir: options.workspaceDir }),
      ...(options.cloud === undefined ? {} : { cloud: options.cloud }),
    });
    const turn = await acceptedTurn(log, sent.sessionId, sent.created ? 0 : from, message);
    const urls = this.sessionUrls(scope.origin, sent.sessionId);
    return {
      id: sent.sessionId,
      sessionId: sent.sessionId,
      continuationToken: sent.continuationToken,
      created: sent.created,
      playgroundUrl: urls.playgroundUrl,
      traceUrl: urls.traceUrl,
      waitForCompletion: async (wait) => {
        if (!turn) return { status: "failed", errorMessage: "the message was not recorded on the session" };
        return waitForTurn(log, sent.sessionId, turn.turnId, turn.index, wait?.timeoutMs);
      },
    };
  }

  /** A session of `channelId`, or null. */
  async getSession(channelId: string, sessionId: string): Promise<ChannelSession | null> {
    if (typeof sessionId !== "string") return null;
    const record = await this.#deps.store.get(sessionId).catch(() => undefined);
    if (!record || record.channel !== channelId) return null;
    const { controller, sessions } = this.#deps;
    // The live view wins: a stored "running" without a turn here is a turn whose settle write is
    // still under way (recovery has settled any a previous process left behind). A session living
    // in another host has only its stored status (../../engine/sessions/placed-sessions.ts).
    const resting = record.status === "running" || record.status === "queued" ? "idle" : record.status;
    const status = !sessions.isHere(sessionId)
      ? record.status
      : controller.isQueued(sessionId)
        ? "queued"
        : controller.isBusy(sessionId)
          ? "running"
          : resting;
    return {
      id: record.sessionId,
      sessionId: record.sessionId,
      channel: record.channel,
      mode: record.mode,
      status,
      title: record.title ?? null,
      continuationToken: record.continuationToken,
      state: { ...this.#definitions.get(channelId)?.state, ...record.state },
    };
  }

  /**
   * The message `channelId`'s `onMessage` makes of one that reached it over the session routes
   * (only the HTTP channel may author one); unchanged without one.
   */
  transform(channelId: string, input: HttpChannelMessage): Promise<TransformedMessage> {
    return applyOnMessage(this.#definitions.get(channelId), input, () =>
      this.services(channelId, { origin: new URL(input.request.url).origin, auth: input.auth }),
    );
  }

  /** Whether a custom channel (not the built-in HTTP one) started the session. */
  async ownsSession(sessionId: string): Promise<boolean> {
    if (this.#definitions.size === 0) return false;
    const channel = (await this.#deps.store.get(sessionId))?.channel;
    return channel !== undefined && channel !== HTTP_CHANNEL && this.#definitions.has(channel);
  }

  /** Links of a session; relative to the host when no request origin is known. */
  sessionUrls(origin: string | undefined, sessionId: string): ChannelSessionUrls {
    const base = `${origin ?? ""}${this.#deps.basePath}`;
    return {
      playgroundUrl: `${base}/playground?sessionId=${sessionId}`,
      traceUrl: `${base}/v1/session/${sessionId}/events`,
      streamUrl: `${base}/v1/session/${sessionId}/stream`,
    };
  }

  // --- internals ---

  #track(promise: Promise<unknown>): void {
    const tracked = promise.then(() => {});
    this.#background.add(tracked);
    void tracked.finally(() => this.#background.delete(tracked));
  }

  #idOf(definition: ChannelDefinition): string {
    for (const [id, candidate] of this.#definitions) if (candidate === definition) return id;
    throw new Error("[agent-serve] [channels] receive: that channel definition is not mounted on this agent");
  }

  async #sessionOf(channelId: string, continuationToken: string): Promise<string | undefined> {
    return this.#deps.store.findByToken(channelId, continuationToken);
  }

  #startContext(channelId: string): ChannelStartContext<ChannelState> {
    const deps = this.#deps;
    return {
      ...this.services(channelId),
      emitAssistantMessage: async (sessionId, text) => {
        const record = await deps.store.get(sessionId);
        if (!record || record.channel !== channelId) throw notFound("session_not_found", `no session ${sessionId} in channel ${channelId}`);
        await deps.sessions.emitMessage(sessionId, text);
      },
      hasContinuationSession: async (token) => (await this.#sessionOf(channelId, token)) !== undefined,
      isContinuationBusy: async (token) => {
        const sessionId = await this.#sessionOf(channelId, token);
        return sessionId !== undefined && (await deps.sessions.busy(sessionId));
      },
      getContinuationLastBotMessageTs: async (token) => {
        const sessionId = await this.#sessionOf(channelId, token);
        if (sessionId === undefined) return null;
        const replies = (await deps.log.readEvents(sessionId)).filter(
          (event) => event.type === "message.completed" && event.data.finishReason !== "tool_call",
        );
        return replies.at(-1)?.at ?? null;
      },
      interruptContinuation: async (token) => {
        const sessionId = await this.#sessionOf(channelId, token);
        return sessionId === undefined ? false : deps.sessions.interrupt(sessionId);
      },
      resolveApproval: async (sessionId, callId, decision, auth) => {
        await deps.sessions.owned(sessionId, auth);
        await deps.approvals.resolve(sessionId, callId, decision);
      },
    };
  }
}
