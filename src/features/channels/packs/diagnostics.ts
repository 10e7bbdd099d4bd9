/**
 * `validate` (and `serve` at start) warn when a pack channel lacks a secret or token it needs:
 * the channel still mounts (a developer may replay deliveries under `--dev`), but in production
 * it would refuse every delivery or post no reply (docs/guide/slack.md, docs/guide/github.md).
 * @module
 */
import type { Diagnostic } from "../../../base/definitions/project.ts";
import { channelPackOf } from "./marker.ts";

/** `fileOf(id)` names the channel's project-relative file. */
export function channelPackDiagnostics(channels: Record<string, unknown>, fileOf: (id: string) => string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [id, definition] of Object.entries(channels)) {
    const pack = channelPackOf(definition);
    if (!pack) continue;
    for (const requirement of pack.requirements()) {
      if (requirement.present) continue;
      diagnostics.push({
        severity: "warning",
        code: "channel_pack_setting_missing",
        message: `channel ${id} (${pack.kind} pack): ${requirement.name} is not set; it ${requirement.purpose}`,
        file: fileOf(id),
      });
    }
    for (const notice of pack.notices?.() ?? []) {
      diagnostics.push({ severity: "warning", code: "channel_pack_option_unsupported", message: `channel ${id} (${pack.kind} pack): ${notice}`, file: fileOf(id) });
    }
  }
  return diagnostics;
}
