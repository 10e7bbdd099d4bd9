import type { HookDefinition } from "../../base/definitions/hooks.ts";

/**
 * Declares a hook in `bot/hooks/<name>.ts`: handlers keyed by event type (or `*`) that run after
 * each event is recorded. A typed identity function.
 * @example
 * export default defineHook({ events: { "turn.completed": (event, ctx) => ctx.logger.info(event.turnId ?? "") } });
 */
export function defineHook<const T extends HookDefinition>(definition: T): T {
  return definition;
}
