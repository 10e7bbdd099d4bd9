/**
 * A turn's artifacts are its task's (docs/guide/a2a.md "The mapping"): `artifact.tagged` streams
 * as an artifact update and stays on the Task, which ListTasks shows with `includeArtifacts`.
 */
import { TaskState } from "@a2a-js/sdk";
import * as v from "valibot";
import { expect, it } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineArtifacts } from "../src/entries/artifacts.ts";
import { helloOptions, project } from "./_harness.ts";
import { clientFor, serve, stateOf, userMessage } from "./_a2a.ts";

const artifacts = defineArtifacts({ kinds: { report: { description: "A report", schema: v.object({ words: v.number() }) } }, agentTool: true });

it("artifact.tagged is an artifact update of the task, then part of the Task", async () => {
  const served = await serve(helloOptions({ agents: [{ slug: "hello", project: project({ artifacts }), storage: createMemoryStorage() }] }));
  try {
    const client = await clientFor(`${served.url}/hello`);
    const tag = `/tool tag_artifact ${JSON.stringify({ kind: "report", key: "weekly", title: "Weekly", data: { words: 3 } })}`;
    const frames = [];
    for await (const frame of client.sendMessageStream({ tenant: "", message: userMessage(tag), configuration: undefined, metadata: undefined })) frames.push(frame);
    const updates = frames.flatMap((frame) => (frame.payload?.$case === "artifactUpdate" ? [frame.payload.value] : []));
    expect(updates).toHaveLength(1);
    const artifact = updates[0]!.artifact!;
    expect(artifact.name).toBe("Weekly");
    expect(artifact.parts[0]?.content).toEqual({ $case: "data", value: { words: 3 } });
    expect(artifact.metadata).toEqual({ kind: "report", key: "weekly" });
    expect(stateOf(frames.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    const taskId = updates[0]!.taskId;
    const task = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
    expect(task.artifacts.map((item) => item.artifactId)).toEqual([artifact.artifactId]);
    const listed = await client.listTasks({ tenant: "", contextId: "", status: 0, pageSize: undefined, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: undefined });
    expect(listed.tasks[0]!.artifacts).toEqual([]);
    const withArtifacts = await client.listTasks({ tenant: "", contextId: "", status: 0, pageSize: undefined, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: true });
    expect(withArtifacts.tasks[0]!.artifacts).toHaveLength(1);
  } finally {
    await served.close();
  }
});
