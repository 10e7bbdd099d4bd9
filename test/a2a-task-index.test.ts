/**
 * `ListTasks` on the task index (docs/design/a2a-tasks.md): the second listing reads each context's
 * log only from where the index stopped, and folds whole only the contexts of the page it returns;
 * the answers are those the full fold gives (states, filters, pages); a stale or lost index is
 * rebuilt from the log; removing the session removes its index.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { eventually, helloOptions, project } from "./_harness.ts";
import { rpc, serve } from "./_a2a.ts";

/** The memory store, recording from where each event log is read. */
function countingStore(): { storage: StorageDriver; reads: Array<{ log: string; from: number }> } {
  const inner = createMemoryStorage();
  const reads: Array<{ log: string; from: number }> = [];
  const storage = Object.create(inner) as StorageDriver;
  storage.read = (log, from, to) => {
    reads.push({ log, from: from ?? 0 });
    return inner.read(log, from, to);
  };
  return { storage, reads };
}

type Listed = { tasks: Array<{ id: string; contextId: string; status: { state: string } }>; nextPageToken: string; totalSize: number };

describe("ListTasks on the task index", () => {
  it("reads only new events and folds whole only the page's contexts", async () => {
    const { storage, reads } = countingStore();
    const host = await serve(helloOptions({ agents: [{ slug: "hello", project: project(), storage }] }));
    try {
      const endpoint = `${host.url}/hello/v1/a2a`;
      const call = async (method: string, params: Record<string, unknown>) => (await rpc(endpoint, { jsonrpc: "2.0", id: 1, method, params })).body["result"];
      const contexts: string[] = [];
      for (let i = 0; i < 4; i++) {
        const sent = (await call("SendMessage", { message: { messageId: `m${i}`, role: "ROLE_USER", parts: [{ text: `/reply answer ${i}` }] } })) as { task: { contextId: string } };
        contexts.push(sent.task.contextId);
      }
      // A second task in the first context, and one that fails.
      await call("SendMessage", { message: { messageId: "again", role: "ROLE_USER", contextId: contexts[0], parts: [{ text: "/reply again" }] } });
      await call("SendMessage", { message: { messageId: "bad", role: "ROLE_USER", contextId: contexts[1], parts: [{ text: "/fail broken" }] } });

      const first = (await call("ListTasks", {})) as Listed;
      expect(first.totalSize).toBe(6);
      expect(first.tasks.map((task) => task.status.state).sort()).toEqual([...Array(5).fill("TASK_STATE_COMPLETED"), "TASK_STATE_FAILED"].sort());

      reads.splice(0);
      const page = (await call("ListTasks", { pageSize: 1 })) as Listed;
      expect(page.tasks).toHaveLength(1);
      const pageContext = page.tasks[0]!.contextId;
      const eventReads = reads.filter((read) => read.log.includes(contexts[0]!) || contexts.some((id) => read.log.includes(id)));
      // Every other context's log is read only past what the index holds: nothing from 0.
      for (const read of eventReads) if (!read.log.includes(pageContext)) expect(read.from, read.log).toBeGreaterThan(0);
      expect(eventReads.filter((read) => read.from === 0).every((read) => read.log.includes(pageContext))).toBe(true);

      // Filters and pages answer as before.
      expect(((await call("ListTasks", { status: "TASK_STATE_FAILED" })) as Listed).tasks.map((task) => task.contextId)).toEqual([contexts[1]]);
      expect(((await call("ListTasks", { contextId: contexts[0] })) as Listed).totalSize).toBe(2);
      const seen: string[] = [];
      let token = "";
      do {
        const listed = (await call("ListTasks", { pageSize: 4, pageToken: token })) as Listed;
        seen.push(...listed.tasks.map((task) => task.id));
        token = listed.nextPageToken;
      } while (token);
      expect(seen).toEqual(first.tasks.map((task) => task.id));

      // New events are folded in: a new task shows up, working then completed.
      await call("SendMessage", { message: { messageId: "later", role: "ROLE_USER", contextId: contexts[2], parts: [{ text: "/reply later" }] } });
      expect(((await call("ListTasks", {})) as Listed).totalSize).toBe(7);

      // A lost index is rebuilt from the log.
      await storage.delete(`a2a/task-index/${contexts[3]}`);
      expect(((await call("ListTasks", { contextId: contexts[3] })) as Listed).tasks.map((task) => task.status.state)).toEqual(["TASK_STATE_COMPLETED"]);

      // Removing the session removes its index.
      expect(await storage.get(`a2a/task-index/${contexts[3]}`)).toBeDefined();
      expect((await fetch(`${host.url}/hello/v1/session/${contexts[3]}`, { method: "DELETE" })).status).toBe(200);
      await eventually(async () => ((await storage.get(`a2a/task-index/${contexts[3]}`)) === undefined ? true : undefined), 2000, "index removed");
    } finally {
      await host.close();
    }
  });
});
