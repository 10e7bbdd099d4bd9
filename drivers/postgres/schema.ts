/**
 * The Postgres driver's schema and its versioned migrations (docs/design/storage.md, "Postgres
 * driver"). Every process migrates on start inside one transaction that first takes a
 * transaction-scoped advisory lock, so processes starting together apply each migration once and
 * the others find the schema current. A schema newer than this code is refused, never touched.
 * @module
 */
import type postgres from "postgres";

/** A schema name is interpolated into DDL, so it is held to a plain lower-case identifier. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

/** Throws unless `schema` is a name the driver can use unquoted-safe in its DDL. */
export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`[agent-serve] [storage] postgres schema must match ${SCHEMA_NAME} (got ${JSON.stringify(schema)})`);
  }
}

/** The `NOTIFY` channel of a schema's commits: one per schema, so two schemas never hear each other. */
export const channelOf = (schema: string): string => `agent_serve:${schema}`;

/** The SQLSTATE the commit function raises on a stale `expected` or `expectedIndex`. */
export const CONFLICT_STATE = "AS409";

interface Migration {
  version: number;
  /** The DDL, with `S` standing for the quoted schema name. */
  sql: string;
}

/**
 * Append-only: a released migration is never edited, a change is a new version. Text columns
 * compared or sorted by key use the "C" collation, so the order is byte order, as on every other
 * driver, whatever the database's locale.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE S.records (
  ns text NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (ns, key)
);
CREATE TABLE S.logs (
  ns text NOT NULL,
  log text COLLATE "C" NOT NULL,
  length bigint NOT NULL,
  PRIMARY KEY (ns, log)
);
CREATE TABLE S.lines (
  ns text NOT NULL,
  log text COLLATE "C" NOT NULL,
  idx bigint NOT NULL,
  line text NOT NULL,
  PRIMARY KEY (ns, log, idx)
);
CREATE TABLE S.leases (
  ns text NOT NULL,
  key text COLLATE "C" NOT NULL,
  owner text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (ns, key)
);

-- One commit, one statement: checks and writes in one transaction. The driver sends the records
-- sorted by key (r_pos: each one's place in the commit, for the conflict it reports) and the
-- logs appended to sorted by name with their totals (h_*; a_heads: each append's log among them),
-- so locks are taken in one global order, records then log heads, and two commits never
-- deadlock each other. A stale check raises ${CONFLICT_STATE}, which rolls back everything the
-- call wrote.
CREATE FUNCTION S.commit_batch(
  p_ns text, p_channel text, p_origin text,
  r_keys text[], r_values text[], r_ops text[], r_checks text[], r_expected text[], r_pos int[],
  h_logs text[], h_totals bigint[],
  a_heads int[], a_expected bigint[], a_counts int[], a_lines text[]
) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
DECLARE
  i int;
  j int;
  k int;
  base bigint;
  pos bigint;
  cur text;
  offs int := 0;
  heads bigint[] := '{}';
  firsts bigint[] := '{}';
BEGIN
  FOR i IN 1 .. coalesce(array_length(r_keys, 1), 0) LOOP
    IF r_checks[i] = 'a' THEN
      IF r_ops[i] = 'd' THEN
        PERFORM 1 FROM S.records WHERE ns = p_ns AND key = r_keys[i] FOR UPDATE;
        IF FOUND THEN RAISE EXCEPTION USING ERRCODE = '${CONFLICT_STATE}', MESSAGE = 'record', DETAIL = r_pos[i]::text; END IF;
      ELSE
        INSERT INTO S.records (ns, key, value) VALUES (p_ns, r_keys[i], r_values[i]) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN RAISE EXCEPTION USING ERRCODE = '${CONFLICT_STATE}', MESSAGE = 'record', DETAIL = r_pos[i]::text; END IF;
      END IF;
      CONTINUE;
    END IF;
    IF r_checks[i] = 'v' THEN
      SELECT value INTO cur FROM S.records WHERE ns = p_ns AND key = r_keys[i] FOR UPDATE;
      IF NOT FOUND OR cur <> r_expected[i] THEN
        RAISE EXCEPTION USING ERRCODE = '${CONFLICT_STATE}', MESSAGE = 'record', DETAIL = r_pos[i]::text;
      END IF;
    END IF;
    IF r_ops[i] = 'd' THEN
      DELETE FROM S.records WHERE ns = p_ns AND key = r_keys[i];
    ELSE
      INSERT INTO S.records (ns, key, value) VALUES (p_ns, r_keys[i], r_values[i])
        ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value;
    END IF;
  END LOOP;

  -- Each log's head row is locked and moved past every line of this commit at once; the
  -- appends then take their indexes from it in commit order.
  FOR k IN 1 .. coalesce(array_length(h_logs, 1), 0) LOOP
    IF h_totals[k] > 0 THEN
      INSERT INTO S.logs AS h (ns, log, length) VALUES (p_ns, h_logs[k], h_totals[k])
        ON CONFLICT (ns, log) DO UPDATE SET length = h.length + EXCLUDED.length
        RETURNING h.length - h_totals[k] INTO base;
    ELSE
      SELECT h.length INTO base FROM S.logs AS h WHERE h.ns = p_ns AND h.log = h_logs[k];
      base := coalesce(base, 0);
    END IF;
    heads := heads || base;
  END LOOP;
  FOR j IN 1 .. coalesce(array_length(a_heads, 1), 0) LOOP
    pos := heads[a_heads[j]];
    IF a_expected[j] >= 0 AND a_expected[j] <> pos THEN
      RAISE EXCEPTION USING ERRCODE = '${CONFLICT_STATE}', MESSAGE = 'log', DETAIL = j::text || ' ' || pos::text;
    END IF;
    firsts := firsts || pos;
    IF a_counts[j] = 1 THEN
      INSERT INTO S.lines (ns, log, idx, line) VALUES (p_ns, h_logs[a_heads[j]], pos, a_lines[offs + 1]);
    ELSIF a_counts[j] > 1 THEN
      INSERT INTO S.lines (ns, log, idx, line)
        SELECT p_ns, h_logs[a_heads[j]], pos + n - 1, a_lines[offs + n] FROM generate_series(1, a_counts[j]) AS n;
    END IF;
    IF a_counts[j] > 0 THEN
      -- Small on purpose: followers read the lines from the table (NOTIFY payloads are capped).
      -- The origin lets the committing driver skip its own: it hands them over when they resolve.
      PERFORM pg_notify(p_channel, json_build_array(p_ns, h_logs[a_heads[j]], pos, a_counts[j], p_origin)::text);
    END IF;
    offs := offs + a_counts[j];
    heads[a_heads[j]] := pos + a_counts[j];
  END LOOP;
  RETURN firsts;
END
$fn$;

-- Each statement of a plpgsql function takes a fresh snapshot: the lines are deleted after the
-- head's lock is held, so an append committing meanwhile leaves no line behind.
CREATE FUNCTION S.delete_log(p_ns text, p_log text) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM S.logs WHERE ns = p_ns AND log = p_log;
  DELETE FROM S.lines WHERE ns = p_ns AND log = p_log;
END
$fn$;
`,
  },
  {
    version: 2,
    sql: `
-- Group commit: the commits that queued behind the one in flight, applied in order in one
-- transaction (one WAL flush), each in a subtransaction of its own, so a stale check rolls back
-- that commit only and is reported in its place. The commits' arrays come one after another;
-- b_* say how many elements of each belong to each commit. Rows the group's commits already have
-- are locked first, in the order a single commit uses, so two groups do not deadlock on them.
CREATE FUNCTION S.commit_group(
  p_ns text, p_channel text, p_origin text,
  b_records int[], b_heads int[], b_appends int[], b_lines int[],
  r_keys text[], r_values text[], r_ops text[], r_checks text[], r_expected text[], r_pos int[],
  h_logs text[], h_totals bigint[],
  a_heads int[], a_expected bigint[], a_counts int[], a_lines text[]
) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  b int;
  ro int := 0;
  ho int := 0;
  ao int := 0;
  lo int := 0;
  firsts bigint[];
  msg text;
  det text;
  results jsonb := '[]';
BEGIN
  PERFORM 1 FROM S.records WHERE ns = p_ns AND key = ANY (r_keys) ORDER BY key FOR UPDATE;
  PERFORM 1 FROM S.logs WHERE ns = p_ns AND log = ANY (h_logs) ORDER BY log FOR UPDATE;
  FOR b IN 1 .. coalesce(array_length(b_records, 1), 0) LOOP
    BEGIN
      firsts := S.commit_batch(p_ns, p_channel, p_origin,
        r_keys[ro + 1 : ro + b_records[b]], r_values[ro + 1 : ro + b_records[b]], r_ops[ro + 1 : ro + b_records[b]],
        r_checks[ro + 1 : ro + b_records[b]], r_expected[ro + 1 : ro + b_records[b]], r_pos[ro + 1 : ro + b_records[b]],
        h_logs[ho + 1 : ho + b_heads[b]], h_totals[ho + 1 : ho + b_heads[b]],
        a_heads[ao + 1 : ao + b_appends[b]], a_expected[ao + 1 : ao + b_appends[b]], a_counts[ao + 1 : ao + b_appends[b]],
        a_lines[lo + 1 : lo + b_lines[b]]);
      results := results || jsonb_build_array(to_jsonb(firsts));
    EXCEPTION WHEN SQLSTATE '${CONFLICT_STATE}' THEN
      GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
      results := results || jsonb_build_array(jsonb_build_object('code', '${CONFLICT_STATE}', 'message', msg, 'detail', det));
    END;
    ro := ro + b_records[b];
    ho := ho + b_heads[b];
    ao := ao + b_appends[b];
    lo := lo + b_lines[b];
  END LOOP;
  RETURN results;
END
$fn$;
`,
  },
];

/** The newest schema version this code knows. */
export const SCHEMA_VERSION: number = MIGRATIONS.at(-1)!.version;

/**
 * Brings `schema` to {@link SCHEMA_VERSION}: creates it on first use, applies what is missing in
 * order, and refuses a schema a newer agent-serve has migrated past.
 */
export async function migrate(sql: postgres.Sql, schema: string): Promise<void> {
  assertSchemaName(schema);
  const S = `"${schema}"`;
  await sql.begin(async (tx) => {
    // Held until this transaction ends: concurrent starts apply migrations one after another.
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`agent-serve:${schema}`}))`;
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${S}`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${S}.schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const [row] = await tx.unsafe<Array<{ version: number }>>(`SELECT coalesce(max(version), 0)::int AS version FROM ${S}.schema_migrations`);
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(`[agent-serve] [storage] postgres schema ${schema} is at version ${current}, newer than this agent-serve knows (${SCHEMA_VERSION}): upgrade agent-serve`);
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await tx.unsafe(migration.sql.replace(/\bS\./g, `${S}.`));
      await tx.unsafe(`INSERT INTO ${S}.schema_migrations (version) VALUES (${migration.version})`);
    }
  });
}
