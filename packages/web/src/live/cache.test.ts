import type { Message, Session, Task } from "@grove/protocol";
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { keys } from "../api/keys.js";
import { feedCache, mergeEarly, putTask, upsertMessage } from "./cache.js";
import { EventStream } from "./events.js";

/** Delivers a frame the way the socket's onmessage does (EventStream.emit is the one dispatcher). */
function deliver(stream: EventStream, type: string, data: unknown): void {
  (stream as unknown as { emit(type: string, data: unknown, frame: unknown): void }).emit(type, data, { type, data });
}

const message = (id: string, createdAt: string, text = id) => ({ id, sessionId: "ses_1", role: "agent", createdAt, data: { text } }) as unknown as Message;

describe("WEB-4.1 / WEB-19 the page's data cache fed by the event stream (live/cache.ts)", () => {
  it("WEB-4.1: messages keep creation order whether a frame or the first read came first; a frame for a known id replaces it", () => {
    const a = message("m1", "2026-12-01T10:00:01Z");
    const b = message("m2", "2026-12-01T10:00:02Z");
    const c = message("m3", "2026-12-01T10:00:03Z");
    expect(upsertMessage(undefined, a)).toBeUndefined();
    expect(upsertMessage([a, c], b)!.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
    const edited = message("m2", "2026-12-01T10:00:02Z", "edited");
    expect(upsertMessage([a, b, c], edited)!.map((m) => (m.data as { text: string }).text)).toEqual(["m1", "edited", "m3"]);
  });

  it("WEB-4.1: a frame that arrives while the first read of a session's messages runs is kept (the read cannot lose it)", async () => {
    const qc = new QueryClient();
    const stream = new EventStream();
    const off = feedCache(qc, stream);
    let answer!: (m: Message[]) => void;
    const read = mergeEarly("ses_1", () => new Promise<Message[]>((r) => (answer = r)));
    deliver(stream, "session.message", { sessionId: "ses_1", message: message("m3", "2026-12-01T10:00:03Z", "live") });
    answer([message("m1", "2026-12-01T10:00:01Z"), message("m3", "2026-12-01T10:00:03Z", "stale")]);
    expect((await read).map((m) => (m.data as { text: string }).text)).toEqual(["m1", "live"]);
    off();
  });

  it("WEB-1.2: an older task record never overwrites a newer one; the runner fields of GET /tasks/:id are kept", () => {
    const qc = new QueryClient();
    const base = {
      id: "t1",
      title: "new",
      updatedAt: "2026-12-01T11:00:00Z",
      runnerId: "runner_1",
      runnerState: "online",
      runnerLabels: ["gpu"],
    } as unknown as Task;
    qc.setQueryData(keys.task("t1"), base);
    putTask(qc, { id: "t1", title: "old", updatedAt: "2026-12-01T10:00:00Z" } as unknown as Task);
    expect(qc.getQueryData<Task>(keys.task("t1"))!.title).toBe("new");
    putTask(qc, { id: "t1", title: "newer", updatedAt: "2026-12-01T12:00:00Z" } as unknown as Task);
    expect(qc.getQueryData<Task>(keys.task("t1"))).toMatchObject({ title: "newer", runnerId: "runner_1", runnerState: "online", runnerLabels: ["gpu"] });
  });

  it("WEB-11.1: a task coming back from the archive (answer or frame) drops the Changes and environment read before it, so the terminal waits for fresh ones", () => {
    const qc = new QueryClient();
    const archived = { id: "t1", title: "a", archivedAt: "2026-12-01T10:00:00Z", updatedAt: "2026-12-01T10:00:00Z" } as unknown as Task;
    const before = { repositories: [{ repositoryId: "r1", status: "active" }] };
    qc.setQueryData(keys.task("t1"), archived);
    qc.setQueryData(keys.changes("t1"), before);
    qc.setQueryData(keys.environment("t1"), before);
    // Still archived (a rename): the reads stay.
    putTask(qc, { ...archived, title: "b", updatedAt: "2026-12-01T10:00:01Z" });
    expect(qc.getQueryData(keys.changes("t1"))).toBe(before);
    putTask(qc, { ...archived, archivedAt: null, updatedAt: "2026-12-01T10:00:02Z" } as unknown as Task);
    expect(qc.getQueryData(keys.changes("t1"))).toBeUndefined();
    expect(qc.getQueryData(keys.environment("t1"))).toBeUndefined();
    expect(qc.getQueryData<Task>(keys.task("t1"))!.archivedAt).toBeNull();
  });

  it("WEB-4.1: session frames upsert the task's session list in creation order; session.deleted removes it and its messages", () => {
    const qc = new QueryClient();
    const stream = new EventStream();
    const off = feedCache(qc, stream);
    const s = (id: string, createdAt: string, state = "waiting_for_input") =>
      ({ id, taskId: "t1", createdAt, updatedAt: createdAt, state }) as unknown as Session;
    qc.setQueryData<Session[]>(keys.sessions("t1"), [s("s2", "2026-12-01T10:00:02Z")]);
    qc.setQueryData<Message[]>(keys.messages("s2"), []);
    deliver(stream, "session.created", { session: s("s1", "2026-12-01T10:00:01Z") });
    expect(qc.getQueryData<Session[]>(keys.sessions("t1"))!.map((x) => x.id)).toEqual(["s1", "s2"]);
    deliver(stream, "session.deleted", { sessionId: "s2", taskId: "t1" });
    expect(qc.getQueryData<Session[]>(keys.sessions("t1"))!.map((x) => x.id)).toEqual(["s1"]);
    expect(qc.getQueryData(keys.messages("s2"))).toBeUndefined();
    off();
  });

  it("WEB-19: after the stream reconnects every cached read is read again", () => {
    const qc = new QueryClient();
    const stream = new EventStream();
    const off = feedCache(qc, stream);
    qc.setQueryData(keys.repositories, []);
    qc.setQueryData(keys.task("t1"), { id: "t1" });
    deliver(stream, "reconnected", undefined);
    expect(qc.getQueryState(keys.repositories)!.isInvalidated).toBe(true);
    expect(qc.getQueryState(keys.task("t1"))!.isInvalidated).toBe(true);
    off();
  });
});
