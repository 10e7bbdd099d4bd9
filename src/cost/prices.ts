/**
 * Built-in model prices for cost estimates, in USD per million tokens. Agent configs override or
 * extend them per model id (`prices` in `bot/agent.ts`). Models not listed are unpriced.
 * @module
 */
import type { ModelPrice } from "../project/types.ts";

/** List prices of the providers' standard tier; cached input where the provider offers it. */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  scripted: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  "openai/gpt-5": { input: 1.25, output: 10, cacheRead: 0.125 },
  "openai/gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025 },
  "openai/gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005 },
  "openai/gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 },
  "openai/gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
  "openai/gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25 },
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075 },
  "anthropic/claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "anthropic/claude-opus-4-1": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "anthropic/claude-sonnet-4-5": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "anthropic/claude-sonnet-4": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "anthropic/claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
};

/** Dated snapshots (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) cost what their alias costs. */
const DATE_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * The price of a model: the override for its id, else the built-in price, else `undefined`.
 * @example
 * priceFor("openai/gpt-5-mini"); // { input: 0.25, output: 2, cacheRead: 0.025 }
 */
export function priceFor(modelId: string, overrides?: Record<string, ModelPrice>): ModelPrice | undefined {
  const undated = modelId.replace(DATE_SUFFIX, "");
  for (const id of [modelId, undated]) {
    const price = lookup(overrides, id) ?? lookup(BUILTIN_PRICES, id);
    if (price) return price;
  }
  return undefined;
}

// --- internals ---

/** Own keys only, so ids such as `constructor` never hit `Object.prototype`. */
function lookup(table: Readonly<Record<string, ModelPrice>> | undefined, id: string): ModelPrice | undefined {
  return table && Object.hasOwn(table, id) ? table[id] : undefined;
}
