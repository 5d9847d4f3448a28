import { afterEach, describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";

type Msg = { role: string; text: string };

describe.each(DATABASES)("WEB-37 queued follow-ups (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("WEB-37 a prompt queued during a turn is kept in order, can be taken back, and is sent when the turn ends (here: cancelled); a waiting session takes it at once", {
    timeout: 120_000,
  }, async () => {
    srv = await startTestServer(kind);
    const api = srv.api;
    const repo = (await api("POST", "/repositories", { path: (await makeRepo({ name: "queued" })).path })).body;
    const task = (await api("POST", "/tasks", { title: "Queue", repositories: [{ repositoryId: repo.id }] })).body;
    const s = (await api("POST", `/tasks/${task.id}/sessions`, { prompt: "say first turn\nsleep 30000" })).body;
    await waitForSession(api, s.id, ["running"]);

    // Without `queue` a running turn still refuses; with it, the prompts wait in order.
    expect((await api("POST", `/sessions/${s.id}/prompt`, { prompt: "say refused" })).status).toBe(409);
    const a = await api("POST", `/sessions/${s.id}/prompt`, { prompt: "say second turn", queue: true });
    expect(a.status).toBe(202);
    expect(a.body.state).toBe("running");
    const b = await api("POST", `/sessions/${s.id}/prompt`, { prompt: "say dropped turn", queue: true });
    expect(b.body.queued.map((q: { text: string }) => q.text)).toEqual(["say second turn", "say dropped turn"]);
    // Taken back before its turn.
    const dropped = b.body.queued[1].id as string;
    const del = await api("DELETE", `/sessions/${s.id}/queued/${dropped}`);
    expect(del.status).toBe(200);
    expect(del.body.queued.map((q: { text: string }) => q.text)).toEqual(["say second turn"]);
    expect((await api("DELETE", `/sessions/${s.id}/queued/${dropped}`)).status).toBe(404);
    expect((await api("GET", `/sessions/${s.id}`)).body.queued).toHaveLength(1);
    // Comments are never queued.
    expect((await api("POST", `/sessions/${s.id}/prompt`, { commentIds: ["c1"], queue: true })).status).toBe(400);

    // The turn ends (cancelled here, so nothing depends on timing): the queued prompt is the next turn, and leaves the queue.
    expect((await api("POST", `/sessions/${s.id}/cancel`)).status).toBe(202);
    const texts = async () => ((await api("GET", `/sessions/${s.id}/messages`)).body as Msg[]).filter((m) => m.role === "agent").map((m) => m.text);
    await waitFor(async () => ((await texts()).some((t) => t.includes("second turn")) ? true : undefined), "the queued prompt's turn", 60_000);
    const after = await waitForSession(api, s.id, ["waiting_for_input"], 60_000);
    expect(after.queued).toBeUndefined();
    const all = await texts();
    expect(all.join("\n")).not.toContain("dropped turn");
    expect(all.findIndex((t) => t.includes("first turn"))).toBeLessThan(all.findIndex((t) => t.includes("second turn")));
    const users = ((await api("GET", `/sessions/${s.id}/messages`)).body as Msg[]).filter((m) => m.role === "user").map((m) => m.text);
    expect(users).toEqual(["say first turn\nsleep 30000", "say second turn"]);

    // A waiting session takes a `queue: true` prompt at once.
    const now = await api("POST", `/sessions/${s.id}/prompt`, { prompt: "say at once", queue: true });
    expect(now.status).toBe(202);
    expect(now.body.queued).toBeUndefined();
    await waitFor(async () => ((await texts()).some((t) => t.includes("at once")) ? true : undefined), "the direct turn", 60_000);
  });
});
