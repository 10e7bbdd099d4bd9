/**
 * Which Durable Object holds a record, log or lease on Workers (docs/design/cloudflare.md
 * "Storage"): a session's own data lives in its session object, everything shared in the
 * coordinator. Pure functions of the name, so every object routes a name the same way.
 * @module
 */

/** An object's database: the coordinator's, or the session object's that holds that one session. */
export type Home = "coordinator" | { session: string };

/** Records and logs under these roots, with a session id as second segment, belong to that session. */
const SESSION_ROOTS = new Set(["sessions", "approvals"]);

/** The home of a record key or log name. */
export function homeOf(name: string): Home {
  const [root, id, ...rest] = name.split("/");
  if (id && root !== undefined && SESSION_ROOTS.has(root) && rest.length > 0) return { session: id };
  if (root === "active" && id && rest.length === 0) return { session: id };
  return "coordinator";
}

/** The home of a lease: a session's turn lease lives with the session, others as their name says. */
export function leaseHomeOf(key: string): Home {
  const [root, id, ...rest] = key.split("/");
  if (root === "turns" && id && rest.length === 0) return { session: id };
  return homeOf(key);
}

/**
 * The home that answers `list`/`entries` of a prefix: the session whose space the prefix lies in
 * (`sessions/<id>/…`, `approvals/<id>/…`); `"here"` for active markers (an object holds at most its
 * own session's, which is what start-up recovery asks for); the coordinator for everything else,
 * including `sessions/` (answered from its mirror of the session records) and `""`.
 */
export function prefixHomeOf(prefix: string): Home | "here" {
  if (prefix.startsWith("active/")) return "here";
  const [root, id, ...rest] = prefix.split("/");
  if (id && root !== undefined && SESSION_ROOTS.has(root) && rest.length > 0) return { session: id };
  return "coordinator";
}

/** The session whose record this key is (`sessions/<id>/record`): such writes are mirrored to the coordinator. */
export function sessionRecordOf(key: string): string | undefined {
  const [root, id, leaf, ...rest] = key.split("/");
  return root === "sessions" && id && leaf === "record" && rest.length === 0 ? id : undefined;
}

/** A string naming a home, for maps and messages. */
export function homeName(home: Home): string {
  return home === "coordinator" ? "coordinator" : `session ${home.session}`;
}

export function sameHome(a: Home, b: Home): boolean {
  return homeName(a) === homeName(b);
}
