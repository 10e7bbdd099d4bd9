/**
 * The built-in model-facing tools an agent's config turns on: the reminder tools and
 * `tag_artifact`. An authored tool of the same name wins (the loader warns).
 * @module
 */
import type { ArtifactStore } from "../features/artifacts/store.ts";
import { tagArtifactTool } from "../features/artifacts/tag-tool.ts";
import { errorMessage } from "../base/errors.ts";
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { ReminderService } from "../features/reminders/service.ts";
import { REMINDER_TOOLS, reminderTools } from "../features/reminders/tools.ts";
import type { SessionStore } from "../engine/sessions/session-store.ts";
import type { HostLogger } from "../base/logging.ts";
import type { BuiltinTool } from "../base/definitions/tools.ts";

export interface BuiltinToolsDeps {
  artifacts: ArtifactStore;
  reminders: ReminderService;
  store: SessionStore;
  logger: HostLogger;
}

export function builtinTools(project: ProjectDefinition, deps: BuiltinToolsDeps): BuiltinTool[] {
  const builtins: BuiltinTool[] = [];
  if (project.agent.builtinTools?.reminders === true) {
    for (const name of REMINDER_TOOLS) {
      if (project.tools && Object.hasOwn(project.tools, name)) {
        deps.logger.warn(`tool ${name} replaces the built-in ${name} of builtinTools.reminders; the authored tool wins`);
      }
    }
    builtins.push(...reminderTools(deps.reminders, deps.store));
  }
  const tag = project.artifacts ? tagArtifactTool(project.artifacts) : undefined;
  if (tag) {
    builtins.push({
      spec: tag.spec,
      async execute(input, scope) {
        try {
          const record = await tag.execute(input, { source: "model", ...scope }, deps.artifacts);
          return { output: { id: record.id, kind: record.kind, key: record.key, title: record.title }, isError: false };
        } catch (error) {
          return { output: errorMessage(error), isError: true };
        }
      },
    });
  }
  return builtins;
}
