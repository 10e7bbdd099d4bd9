/**
 * The Redis driver's key layout and its Lua scripts (docs/design/storage.md, "Redis driver"). A
 * script runs atomically in Redis, so every check and write of a commit happens with nothing in
 * between, and its effects reach the append-only file as one transaction.
 * @module
 */
import { LogConflictError, RecordConflictError, type CommitBatch } from "../../src/base/storage/types.ts";

/** Where each kind of thing lives under the driver's prefix. */
export class KeyLayout {
  readonly prefix: string;
  /** The sorted set (all scores 0) of every record key: listing is a `ZRANGEBYLEX`, never a scan. */
  readonly recordIndex: string;

  constructor(prefix: string) {
    this.prefix = prefix;
    this.recordIndex = `${prefix}records`;
  }

  /** A record's value: a plain string. */
  record(key: string): string {
    return `${this.prefix}r:${key}`;
  }
  /** A log: a stream whose entry `0-<n>` holds line `n - 1` in the field `l`. */
  log(log: string): string {
    return `${this.prefix}l:${log}`;
  }
  /** A lease: the owner as a string with a Redis expiry. */
  lease(key: string): string {
    return `${this.prefix}lease:${key}`;
  }
}

/** A stream entry id for the line at `index`: ids are `0-1`, `0-2`, … so an id is an index. */
export const entryId = (index: number): string => `0-${index + 1}`;
/** The index of the line in the entry `id`. */
export const indexOf = (id: string): number => Number(id.slice(id.indexOf("-") + 1)) - 1;

/**
 * KEYS: the records written (n), the logs appended to (m), then the record index.
 * ARGV: n, m; per record: key, value, `s`(et) or `d`(elete), check (`-` none, `a` must be absent,
 * `v` must equal), expected value; per append: expectedIndex (-1: none), line count, lines.
 * Checks everything first, then writes: a failed check writes nothing.
 */
export const COMMIT_SCRIPT = `
local n = tonumber(ARGV[1])
local m = tonumber(ARGV[2])
local a = 3
for i = 1, n do
  local check = ARGV[a + 3]
  if check == 'a' then
    if redis.call('EXISTS', KEYS[i]) == 1 then return {0, 'r', i} end
  elseif check == 'v' then
    if redis.call('GET', KEYS[i]) ~= ARGV[a + 4] then return {0, 'r', i} end
  end
  a = a + 5
end
local lengths = {}
local firsts = {}
local b = a
for j = 1, m do
  local key = KEYS[n + j]
  local length = lengths[key]
  if length == nil then length = redis.call('XLEN', key) end
  local expected = tonumber(ARGV[b])
  local count = tonumber(ARGV[b + 1])
  if expected >= 0 and expected ~= length then return {0, 'l', j, length} end
  firsts[j] = length
  lengths[key] = length + count
  b = b + 2 + count
end
local index = KEYS[n + m + 1]
a = 3
for i = 1, n do
  if ARGV[a + 2] == 's' then
    redis.call('SET', KEYS[i], ARGV[a + 1])
    redis.call('ZADD', index, 0, ARGV[a])
  else
    redis.call('DEL', KEYS[i])
    redis.call('ZREM', index, ARGV[a])
  end
  a = a + 5
end
for j = 1, m do
  local key = KEYS[n + j]
  local count = tonumber(ARGV[a + 1])
  for k = 1, count do
    redis.call('XADD', key, '0-' .. string.format('%d', firsts[j] + k), 'l', ARGV[a + 1 + k])
  end
  a = a + 2 + count
end
local reply = {1}
for j = 1, m do reply[j + 1] = firsts[j] end
return reply
`;

/** KEYS: the record index. ARGV: record key prefix, range start, range end. Keys and values alternate. */
export const ENTRIES_SCRIPT = `
local members = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[2], ARGV[3])
local out = {}
for _, member in ipairs(members) do
  local value = redis.call('GET', ARGV[1] .. member)
  if value then
    out[#out + 1] = member
    out[#out + 1] = value
  end
end
return out
`;

/**
 * KEYS: the record index. ARGV: the record key prefix, the range's min and max (ZRANGEBYLEX
 * syntax), the limit. Up to `limit` keys with values, flat; an index member without a value is
 * passed over and the range read on, so a short page always means the range is exhausted.
 */
export const ENTRIES_PAGE_SCRIPT = `
local limit = tonumber(ARGV[4])
local min = ARGV[2]
local out = {}
local found = 0
while found < limit do
  local members = redis.call('ZRANGEBYLEX', KEYS[1], min, ARGV[3], 'LIMIT', 0, limit - found)
  if #members == 0 then break end
  for _, member in ipairs(members) do
    local value = redis.call('GET', ARGV[1] .. member)
    if value then
      out[#out + 1] = member
      out[#out + 1] = value
      found = found + 1
    end
  end
  min = '(' .. members[#members]
end
return out
`;

/** KEYS: the lease. ARGV: owner, ttl in ms. 1 when the owner holds it afterwards; a ttl of 0 leaves it expired. */
export const ACQUIRE_LEASE_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
local ttl = tonumber(ARGV[2])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl) else redis.call('DEL', KEYS[1]) end
return 1
`;

/** KEYS: the lease. ARGV: owner. Frees it only for its holder. */
export const RELEASE_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

/** The `KEYS` and `ARGV` of {@link COMMIT_SCRIPT} for `batch`. */
export function commitArgs(layout: KeyLayout, batch: CommitBatch): { keys: string[]; args: string[] } {
  const records = batch.records ?? [];
  const appends = batch.appends ?? [];
  const keys = [...records.map((write) => layout.record(write.key)), ...appends.map((append) => layout.log(append.log)), layout.recordIndex];
  const args = [String(records.length), String(appends.length)];
  for (const write of records) {
    const check = write.expected === undefined ? "-" : write.expected === null ? "a" : "v";
    args.push(write.key, write.value ?? "", write.value === null ? "d" : "s", check, write.expected ?? "");
  }
  for (const append of appends) {
    args.push(String(append.expectedIndex ?? -1), String(append.lines.length), ...append.lines);
  }
  return { keys, args };
}

/** The first index of each append, or the conflict error the script reported. */
export function commitResult(batch: CommitBatch, reply: unknown): number[] {
  const values = reply as Array<number | string>;
  if (values[0] === 1) return values.slice(1).map(Number);
  if (values[1] === "r") throw new RecordConflictError(batch.records![Number(values[2]) - 1]!.key);
  const append = batch.appends![Number(values[2]) - 1]!;
  throw new LogConflictError(append.log, append.expectedIndex!, Number(values[3]));
}

/** The `ZRANGEBYLEX` bounds of the record keys starting with `prefix` (keys are ASCII). */
export function lexRange(prefix: string): [string, string] {
  return prefix === "" ? ["-", "+"] : [`[${prefix}`, `(${prefix}\u007f`];
}

/** `lexRange(prefix)` starting strictly after `after` when that lies inside or past the prefix's start. */
export function lexPageRange(prefix: string, after: string | undefined): [string, string] {
  const [from, to] = lexRange(prefix);
  return [after !== undefined && after >= prefix ? `(${after}` : from, to];
}
