/**
 * The mark a pack leaves on its channel definition, so the host can find GitHub channels for
 * `POST /v1/webhooks/scm` and `validate` can name a pack's missing secrets. A registered symbol
 * is not a definition key (nothing enumerates it) and survives copies of this module.
 * @module
 */
import type { ChannelDefinition } from "../../../base/definitions/channels.ts";

export const CHANNEL_PACK: unique symbol = Symbol.for("agent-serve.channel-pack") as never;

export interface ChannelPackInfo {
  kind: "github" | "slack";
  /** The route deliveries go to, below `/v1/channels/<id>`. */
  ingressPath: string;
  /** Settings the pack cannot work without, and whether each is set (read when asked). */
  requirements(): Array<{ name: string; purpose: string; present: boolean }>;
  /** Options the pack accepts for Agent SDK compatibility but does not act on, explained. */
  notices?(): string[];
}

export function markChannelPack<Definition extends ChannelDefinition>(definition: Definition, info: ChannelPackInfo): Definition {
  Object.defineProperty(definition, CHANNEL_PACK, { value: info, enumerable: false });
  return definition;
}

/** The pack a channel definition comes from, if any. */
export function channelPackOf(definition: unknown): ChannelPackInfo | undefined {
  if (typeof definition !== "object" || definition === null) return undefined;
  const info = (definition as { [CHANNEL_PACK]?: ChannelPackInfo })[CHANNEL_PACK];
  return info && typeof info.kind === "string" ? info : undefined;
}
