/**
 * `agent-serve/channels`: custom channels (`bot/channels/<id>.ts`) and the auth policies of
 * channel auth chains. Agent SDK channel files import the same names from `@cursor/bdk/channels`.
 * @module
 */
export { DELETE, GET, PATCH, POST, PUT, defineChannel } from "../features/channels/define.ts";
export type { BodyRouteOptions, DeleteRouteOptions, QueryRouteOptions } from "../features/channels/define.ts";
export type {
  ChannelBinding,
  ChannelCompletion,
  ChannelDefinition,
  ChannelEventContext,
  ChannelEventHandler,
  ChannelMethod,
  ChannelReceiveInput,
  ChannelRoute,
  ChannelRouteContext,
  ChannelRouteHandler,
  ChannelSendOptions,
  ChannelServices,
  ChannelSession,
  ChannelSessionHandle,
  ChannelSessionUrls,
  ChannelStartContext,
  ChannelState,
  ChannelToolResult,
  HttpChannelMessage,
  HttpChannelMessageResult,
} from "../base/definitions/channels.ts";
export type { SessionEvent } from "../base/events/vocabulary.ts";
export { allowAll, bearerAuth, isLoopbackAddress, localDev, localDevStrict, loopbackOnly } from "../base/auth-policies.ts";
export type { TokenVerifier } from "../base/auth-policies.ts";
export type { AuthContext, AuthPolicy, AuthRequestInfo } from "../base/auth.ts";
