import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newId } from "../../src/domain/ids.js";
import type { MessageRecord, TaskRecord } from "../../src/domain/records.js";
import { allowedFrom } from "../../src/domain/session-state.js";
import type { Store } from "../../src/store/store.js";
import { DATABASES, openTestStore } from "../fixture/db.js";
import { seedTask, session, tick } from "./records.js";

describe.each(DATABASES)("sessions, messages and agent processes on %s", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let task: TaskRecord;

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore(kind));
    ({ task } = await seedTask(store));
  });
  afterEach(() => cleanup());

  const message = (sessionId: string, text: string, over: Partial<MessageRecord> = {}): MessageRecord => ({
    id: newId("msg"),
    sessionId,
    role: "agent",
    text,
    data: undefined,
    createdAt: "2030-01-01T00:00:00.000Z",
    ...over,
  });

  it("SES-1 casSessionState moves from an expected state and records lastError and acpSessionId", async () => {
    const s = session(task.id, "starting");
    await store.insertSession(s);
    const running = await store.casSessionState(s.id, ["starting"], "running", { acpSessionId: "acp-1" }, tick());
    expect(running).toMatchObject({ state: "running", acpSessionId: "acp-1", lastError: null });
    const lastError = { code: "agent_crashed", message: "exit 3", repositoryId: "repo_x", at: tick() };
    const failed = await store.casSessionState(s.id, ["running"], "failed", { lastError }, tick());
    expect(failed).toMatchObject({ state: "failed", lastError, acpSessionId: "acp-1" });
    expect(await store.getSession(s.id)).toEqual(failed);
    const resumed = await store.casSessionState(s.id, ["failed"], "starting", { lastError: null }, tick());
    expect(resumed).toMatchObject({ state: "starting", lastError: null });
  });

  it("SES-1 the CAS loses when the state moved: nothing is written", async () => {
    const s = session(task.id, "running");
    await store.insertSession(s);
    expect(await store.casSessionState(s.id, ["starting"], "waiting_for_input", {}, tick())).toBeUndefined();
    expect(await store.casSessionState(s.id, [], "waiting_for_input", {}, tick())).toBeUndefined();
    expect(await store.getSession(s.id)).toEqual(s);
  });

  it("SES-1 a terminal state is not overwritten by a routine transition", async () => {
    for (const terminal of ["completed", "failed", "cancelled"] as const) {
      const s = session(task.id, terminal);
      await store.insertSession(s);
      for (const to of ["running", "waiting_for_input", "completed", "failed", "cancelled"] as const) {
        if (to === terminal) continue;
        expect(await store.casSessionState(s.id, allowedFrom(to), to, {}, tick()), `${terminal} → ${to}`).toBeUndefined();
      }
      expect((await store.getSession(s.id))?.state).toBe(terminal);
    }
  });

  it("SES-5 setSessionAcpId stores the agent's session id; listSessions is oldest first", async () => {
    const a = session(task.id, "running");
    const b = session(task.id, "created");
    await store.insertSession(b.createdAt > a.createdAt ? a : b);
    await store.insertSession(b.createdAt > a.createdAt ? b : a);
    await store.setSessionAcpId(a.id, "acp-9", tick());
    expect((await store.getSession(a.id))?.acpSessionId).toBe("acp-9");
    expect((await store.listSessions(task.id)).map((s) => s.id)).toEqual([a.id, b.id]);
  });

  it("SES-5 messages keep insertion order even with equal timestamps; updates keep their place", async () => {
    const s = session(task.id);
    await store.insertSession(s);
    const msgs = ["one", "two", "three", "four"].map((t) => message(s.id, t));
    for (const m of msgs) await store.insertMessage(m);
    await store.updateMessage(msgs[0]!.id, { text: "one, grown", data: { chunks: 2 } });
    await store.updateMessage(msgs[1]!.id, { data: null });
    await store.updateMessage(msgs[2]!.id, {});
    const listed = await store.listMessages(s.id);
    expect(listed.map((m) => m.text)).toEqual(["one, grown", "two", "three", "four"]);
    expect(listed[0]!.data).toEqual({ chunks: 2 });
    expect(listed[1]!.data).toBeNull();
    expect(listed[2]!.data).toBeUndefined();
  });

  it("SES-7 deleteSession removes its messages but not the environment or other sessions", async () => {
    const { session: s, environment } = await store.reserveLaunch({ taskId: task.id, session: session(task.id), runnerId: "r", now: tick() });
    const other = session(task.id, "waiting_for_input", { taskEnvironmentId: environment.id });
    await store.insertSession(other);
    await store.insertMessage(message(s.id, "bye"));
    await store.insertMessage(message(other.id, "stay"));
    await store.deleteSession(s.id);
    expect(await store.getSession(s.id)).toBeUndefined();
    expect(await store.listMessages(s.id)).toEqual([]);
    expect(await store.getEnvironment(environment.id)).toEqual(environment);
    expect((await store.listMessages(other.id)).map((m) => m.text)).toEqual(["stay"]);
  });

  it("SES-6 agent processes are upserted per session and listed per runner", async () => {
    const s1 = session(task.id);
    const s2 = session(task.id);
    await store.upsertAgentProcess({ sessionId: s1.id, runnerId: "r1", pid: 100, startTime: "t100", createdAt: tick() });
    await store.upsertAgentProcess({ sessionId: s2.id, runnerId: "r2", pid: 200, startTime: "t200", createdAt: tick() });
    const replaced = { sessionId: s1.id, runnerId: "r1", pid: 101, startTime: "t101", createdAt: tick() };
    await store.upsertAgentProcess(replaced);
    expect(await store.listAgentProcesses("r1")).toEqual([replaced]);
    await store.deleteAgentProcess(s1.id);
    expect(await store.listAgentProcesses("r1")).toEqual([]);
    expect(await store.listAgentProcesses("r2")).toHaveLength(1);
  });
});
