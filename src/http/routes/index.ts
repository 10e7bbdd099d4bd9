import type { RouteDefinition } from "../route.ts";
import { listApprovals, resolveApproval } from "./approvals.ts";
import { artifactContent, listArtifacts } from "./artifacts.ts";
import { abs } from "./abs.ts";
import { a2aJsonRpc, agentCard } from "./a2a.ts";
import {
  a2aRestDeletePushConfig,
  a2aRestExtendedCard,
  a2aRestGetPushConfig,
  a2aRestGetTask,
  a2aRestListPushConfigs,
  a2aRestListTasks,
  a2aRestMessage,
  a2aRestPushConfigs,
  a2aRestTaskAction,
} from "./a2a-rest.ts";
import { A2A_LEGACY_REST_ROUTES } from "./a2a-rest-v03.ts";
import { infoRoute, logs, meta } from "./discovery.ts";
import { cancelEvalRun, getEvalRun, listEvalRuns, listEvals, startEvalRun } from "./evals.ts";
import { mcpEndpoint, mcpToolsEndpoint } from "./mcp.ts";
import { callTool } from "./tools.ts";
import { agentHealth, sessionCost } from "./meta.ts";
import { createSession, deleteSession, followUp, getSession, listSessions, renameSession, stopSession } from "./sessions.ts";
import { sessionEvents, streamSession } from "./streams.ts";
import { uiChat } from "./ui-chat.ts";
import { forkSession } from "./fork.ts";
import { listWebhookDeliveries, redeliverWebhook } from "./webhooks.ts";
import { agUiRun } from "./ag-ui.ts";
import { devFireReminder, devFireSchedule, devListReminders, internalFireReminder, internalFireSchedule } from "./timed-work.ts";

/** Every agent route, in matching order (static segments before parameters). */
export const agentRoutes: readonly RouteDefinition[] = [
  agentHealth,
  listSessions,
  getSession,
  createSession,
  streamSession,
  sessionEvents,
  sessionCost,
  stopSession,
  listApprovals,
  resolveApproval,
  forkSession,
  followUp,
  renameSession,
  uiChat,
  agUiRun,
  deleteSession,
  callTool,
  listArtifacts,
  artifactContent,
  devFireSchedule,
  devListReminders,
  devFireReminder,
  internalFireSchedule,
  internalFireReminder,
  listEvals,
  listEvalRuns,
  startEvalRun,
  getEvalRun,
  cancelEvalRun,
  listWebhookDeliveries,
  redeliverWebhook,
  infoRoute(() => agentRoutes),
  meta,
  logs,
  abs,
  mcpEndpoint,
  mcpToolsEndpoint,
  agentCard,
  a2aJsonRpc,
  a2aRestListTasks,
  a2aRestExtendedCard,
  a2aRestMessage,
  a2aRestGetTask,
  a2aRestTaskAction,
  a2aRestPushConfigs,
  a2aRestListPushConfigs,
  a2aRestGetPushConfig,
  a2aRestDeletePushConfig,
  ...A2A_LEGACY_REST_ROUTES,
];
