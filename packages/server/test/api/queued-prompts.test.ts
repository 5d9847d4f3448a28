import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";

type Msg = { role: string; text: string };

describe.each(ONE_DATABASE)("WEB-37 queued follow-ups (%s)", (kind) => {
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

  /** A session whose first turn runs (30 s) with `text` queued behind it. */
  async function runningWithQueued(text: string, first = "say first turn\nsleep 30000") {
    const api = srv!.api;
    const repo = (await api("POST", "/repositories", { path: (await makeRepo({ name: "queued" })).path })).body;
    const task = (await api("POST", "/tasks", { title: "Queue", repositories: [{ repositoryId: repo.id }] })).body;
    const s = (await api("POST", `/tasks/${task.id}/sessions`, { prompt: first })).body;
    await waitForSession(api, s.id, ["running"]);
    const q = await api("POST", `/sessions/${s.id}/prompt`, { prompt: text, queue: true });
    expect(q.status).toBe(202);
    return { id: s.id as string, queuedId: q.body.queued[0].id as string };
  }
  const userTexts = async (id: string) =>
    ((await srv!.api("GET", `/sessions/${id}/messages`)).body as Msg[]).filter((m) => m.role === "user").map((m) => m.text);

  it("WEB-37 a queued prompt leaves the queue as its turn is claimed: with the bookkeeping after the send stalled (fault queue.after_send:hang), the turn it started ends and finds nothing left to send twice", {
    timeout: 120_000,
  }, async () => {
    srv = await startTestServer(kind, undefined, { GROVE_FAULT: "queue.after_send:hang" });
    const api = srv.api;
    const { id } = await runningWithQueued("say second turn");
    expect((await api("POST", `/sessions/${id}/cancel`)).status).toBe(202);
    const texts = async () => ((await api("GET", `/sessions/${id}/messages`)).body as Msg[]).filter((m) => m.role === "agent").map((m) => m.text);
    await waitFor(async () => ((await texts()).some((t) => t.includes("second turn")) ? true : undefined), "the queued prompt's turn", 60_000);
    const after = await waitForSession(api, id, ["waiting_for_input"], 60_000);
    expect(after.queued).toBeUndefined();
    // The next prompt is the person's: had the queued one been sent again at the second turn's
    // end, it would be running (409) or listed twice.
    expect((await api("POST", `/sessions/${id}/prompt`, { prompt: "say third turn" })).status).toBe(202);
    await waitFor(async () => ((await texts()).some((t) => t.includes("third turn")) ? true : undefined), "the third turn", 60_000);
    await waitForSession(api, id, ["waiting_for_input"], 60_000);
    expect(await userTexts(id)).toEqual(["say first turn\nsleep 30000", "say second turn", "say third turn"]);
    expect((await api("GET", `/sessions/${id}`)).body.queued).toBeUndefined();
  });

  it("WEB-37 USE-2 a queued prompt that cannot be sent (the agent's budget is spent) goes back to the front of the queue, same id, for the person to send or drop", {
    timeout: 120_000,
  }, async () => {
    srv = await startTestServer(kind);
    const api = srv.api;
    expect((await api("PUT", "/agents/scripted/budget", { cost: 0.5 })).status).toBe(200);
    // The first turn waits for the test, then spends past the cap and is cancelled; the queued
    // prompt is then refused by the budget.
    const first = "run while [ ! -f go-on ]; do sleep 0.05; done\nusage 10 1 0.6\nsleep 60000\nsay never";
    const { id, queuedId } = await runningWithQueued("say over budget", first);
    const worktree = (await api("GET", `/sessions/${id}/workspace`)).body.repositories[0].worktreePath as string;
    writeFileSync(join(worktree, "go-on"), "");
    const log = join(srv.home, "logs", "server.log");
    const tried = () => {
      try {
        return readFileSync(log, "utf8").includes("a queued prompt was not sent");
      } catch {
        return false;
      }
    };
    await waitFor(async () => (tried() ? true : undefined), "the queued prompt's refused send", 60_000);
    const s = await waitFor(async () => {
      const r = (await api("GET", `/sessions/${id}`)).body;
      return r.state === "waiting_for_input" && r.queued?.length === 1 ? r : undefined;
    }, "the prompt back in the queue");
    expect(s.queued.map((q: { id: string; text: string }) => [q.id, q.text])).toEqual([[queuedId, "say over budget"]]);
    expect(await userTexts(id)).toEqual([first]);
  });
});
