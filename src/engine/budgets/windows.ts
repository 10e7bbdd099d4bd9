/**
 * The per-day windows of `principalPerDay` and `agentPerDay`: UTC calendar days, whatever the
 * host's time zone (docs/guide/budgets.md "Windows").
 * @module
 */

/** `YYYY-MM-DD` of the UTC day `ms` falls in. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The next UTC midnight after `ms`, as an ISO timestamp. */
export function nextUtcMidnight(ms: number): string {
  const date = new Date(ms);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1)).toISOString();
}
