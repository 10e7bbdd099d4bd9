/**
 * Model prices for cost estimates, in USD per million tokens: the `@pydantic/genai-prices`
 * catalog (offline), which agent configs override or extend per model id (`prices` in
 * `bot/agent.ts`). Models the catalog does not know are unpriced.
 * @module
 */
import type { ModelPrice } from "../../base/definitions/project.ts";

/**
 * Prices the catalog does not know: the offline scripted model. Every provider model is priced
 * from `@pydantic/genai-prices`, a maintained price catalog that ships its data with the package
 * (no network at run time).
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  scripted: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

/** Providers whose model ids the catalog prices; `openai-compatible` servers set their own prices. */
const CATALOG_PROVIDERS = new Set(["openai", "anthropic"]);

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
  return catalogPrice(modelId);
}

// --- internals ---

/** Own keys only, so ids such as `constructor` never hit `Object.prototype`. */
function lookup(table: Readonly<Record<string, ModelPrice>> | undefined, id: string): ModelPrice | undefined {
  return table && Object.hasOwn(table, id) ? table[id] : undefined;
}

const catalog = new Map<string, ModelPrice | undefined>();
let calcPrice: (typeof import("@pydantic/genai-prices"))["calcPrice"] | undefined;

/**
 * Loads the price catalog (its data is most of a megabyte) on first need instead of at start-up;
 * `priceFor` knows only the agent's own prices and the scripted model until this resolved.
 */
export async function loadPriceCatalog(): Promise<void> {
  calcPrice ??= (await import("@pydantic/genai-prices")).calcPrice;
}

/**
 * The catalog's list price of `provider/model`, as USD per million tokens. Prices tiered by
 * prompt size (above 200k tokens) use their base tier: usage is recorded per turn, not per
 * request, so the tier a request fell in is unknown.
 */
function catalogPrice(modelId: string): ModelPrice | undefined {
  if (!calcPrice) return undefined;
  if (catalog.has(modelId)) return catalog.get(modelId);
  const slash = modelId.indexOf("/");
  const provider = modelId.slice(0, slash);
  let price: ModelPrice | undefined;
  if (slash > 0 && CATALOG_PROVIDERS.has(provider)) {
    try {
      const found = calcPrice({ input_tokens: 0, output_tokens: 0 }, modelId.slice(slash + 1), { providerId: provider });
      const table = found?.model_price as Record<string, unknown> | undefined;
      const input = base(table?.["input_mtok"]);
      const output = base(table?.["output_mtok"]);
      if (input !== undefined && output !== undefined) {
        const cacheRead = base(table?.["cache_read_mtok"]);
        const cacheWrite = base(table?.["cache_write_mtok"]);
        price = { input, output, ...(cacheRead === undefined ? {} : { cacheRead }), ...(cacheWrite === undefined ? {} : { cacheWrite }) };
      }
    } catch {
      price = undefined;
    }
  }
  catalog.set(modelId, price);
  return price;
}

/** A catalog price: a number, or `{base, tiers}` for prices tiered by prompt size. */
function base(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  const tiered = typeof value === "object" && value !== null ? (value as { base?: unknown }).base : undefined;
  return typeof tiered === "number" ? tiered : undefined;
}
