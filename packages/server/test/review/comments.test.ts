import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { openEvents, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { agentText, reviewTask } from "./helpers.js";

const FILE = "one\ntwo\nthree\nfour\nfive\n";

describe.each(ONE_DATABASE)("review comments (%s)", (kind) => {
  let srv: TestServer;
  let events: Awaited<ReturnType<typeof openEvents>>;
  let t: Awaited<ReturnType<typeof reviewTask>>;
  let other: Awaited<ReturnType<typeof reviewTask>>;

  beforeAll(async () => {
    srv = await startTestServer(kind);
    events = await openEvents(srv.url);
    // The agent changes line 3 and adds a line; side new shows "THREE", side old "three".
    t = await reviewTask(srv, { files: { "src/a.txt": FILE }, prompt: "write src/a.txt one\\ntwo\\nTHREE\\nfour\\nfive\\nsix\\n" });
    other = await reviewTask(srv, { title: "Other task" });
  }, 60_000);
  afterAll(async () => {
    events?.close();
    await srv?.close();
  });

  const comment = (body: Record<string, unknown>, taskId = t.task.id) =>
    srv.api("POST", `/tasks/${taskId}/comments`, { repositoryId: t.repository.id, ...body });

  test("RV-1 comments: created on the new and the old side, anchored to the line's text and commit", async () => {
    const n = await comment({ path: "src/a.txt", line: 3, body: "Why upper case?" });
    expect(n.status).toBe(201);
    expect(n.body).toMatchObject({
      taskId: t.task.id,
      repositoryId: t.repository.id,
      path: "src/a.txt",
      line: 3,
      side: "new",
      state: "open",
      outdated: false,
      lineText: "THREE",
    });
    expect(n.body.commit).toMatch(/^[0-9a-f]{40}$/);
    const o = await comment({ path: "src/a.txt", line: 3, side: "old", body: "The old line was fine" });
    expect(o.status).toBe(201);
    expect(o.body).toMatchObject({ side: "old", lineText: "three", outdated: false });
    // Line 6 exists only on the new side.
    expect((await comment({ path: "src/a.txt", line: 6, body: "new line" })).status).toBe(201);
    expect((await comment({ path: "src/a.txt", line: 6, side: "old", body: "x" })).body.error.code).toBe("comment_anchor_invalid");
    await waitFor(() => events.frames.filter((f) => f.type === "comment.created").length >= 3, "comment.created events");
  });

  test("RV-1 comments: bad anchors are 400 (unknown path, line 0, past the end, another task's repository)", async () => {
    const unknown = await comment({ path: "src/nope.txt", line: 1, body: "x" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: "comment_anchor_invalid", details: { field: "path" } });
    const zero = await comment({ path: "src/a.txt", line: 0, body: "x" });
    expect(zero.status).toBe(400);
    expect(zero.body.error.details.field).toBe("line");
    const past = await comment({ path: "src/a.txt", line: 7, body: "x" });
    expect(past.status).toBe(400);
    expect(past.body.error).toMatchObject({ code: "comment_anchor_invalid", details: { field: "line" } });
    const foreign = await srv.api("POST", `/tasks/${t.task.id}/comments`, { repositoryId: other.repository.id, path: "README.md", line: 1, body: "x" });
    // The other task's repository is its own temp repository: not one of this task's.
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: "comment_anchor_invalid", details: { field: "repositoryId" } });
    const escape = await comment({ path: "../../etc/passwd", line: 1, body: "x" });
    expect(escape.status).toBe(400);
    const list = (await srv.api("GET", `/tasks/${t.task.id}/comments`)).body;
    expect(list.every((c: any) => c.body !== "x")).toBe(true);
  });

  test("RV-1 comments: sent to the scripted agent as one prompt with file, lines and words; open → sent → resolved", async () => {
    const list = (await srv.api("GET", `/tasks/${t.task.id}/comments`)).body as any[];
    const ids = list.filter((c) => c.line === 3).map((c) => c.id);
    expect(ids).toHaveLength(2);
    const p = await srv.api("POST", `/sessions/${t.session.id}/prompt`, { commentIds: ids, prompt: "say on it" });
    expect(p.status).toBe(202);
    await waitForSession(srv.api, t.session.id, ["waiting_for_input"]);
    const text = await agentText(srv, t.session.id);
    expect(text).toContain(`src/a.txt, line 3 (new side), lines 1-5`);
    expect(text).toContain("> 3 | THREE");
    expect(text).toContain("2 | two");
    expect(text).toContain("Comment: Why upper case?");
    expect(text).toContain("src/a.txt, line 3 (old side)");
    expect(text).toContain("> 3 | three");
    expect(text).toContain("Comment: The old line was fine");
    expect(text).toContain("on it");
    const after = (await srv.api("GET", `/tasks/${t.task.id}/comments`)).body as any[];
    for (const c of after.filter((c) => ids.includes(c.id))) expect(c).toMatchObject({ state: "sent", sessionId: t.session.id, turn: 2 });
    expect(after.find((c) => c.line === 6).state).toBe("open");

    const r = await srv.api("PATCH", `/comments/${ids[0]}`, { state: "resolved" });
    expect(r.status).toBe(200);
    expect(r.body.state).toBe("resolved");
    // A resolved comment is not sent again until it is reopened.
    expect((await srv.api("POST", `/sessions/${t.session.id}/prompt`, { commentIds: [ids[0]] })).body.error.code).toBe("comment_resolved");
    expect((await srv.api("PATCH", `/comments/${ids[0]}`, { state: "open", body: "Reopened" })).body).toMatchObject({ state: "open", body: "Reopened" });
    await waitFor(() => events.frames.some((f) => f.type === "comment.updated" && f.data.comment.state === "sent"), "comment.updated event");
  });

  test("RV-1 comments: an edit of the commented line marks the comment outdated (not moved)", async () => {
    writeFileSync(join(t.worktree, "src/a.txt"), "zero\none\ntwo\nTHREE\nfour\nfive\nsix\n");
    const list = (await srv.api("GET", `/tasks/${t.task.id}/comments`)).body as any[];
    const n = list.find((c) => c.line === 3 && c.side === "new");
    expect(n).toMatchObject({ outdated: true, line: 3, lineText: "THREE" });
    // The old side did not change: its comment is current.
    expect(list.find((c) => c.line === 3 && c.side === "old").outdated).toBe(false);
  });

  test("RV-1 comments: a comment of another task cannot be sent; delete is 204 then 404 with an event", async () => {
    const c = (await comment({ path: "src/a.txt", line: 1, body: "to delete" })).body;
    const foreign = await srv.api("POST", `/sessions/${other.session.id}/prompt`, { commentIds: [c.id] });
    expect(foreign.status).toBe(400);
    expect((await srv.api("DELETE", `/comments/${c.id}`, {})).status).toBe(204);
    expect((await srv.api("DELETE", `/comments/${c.id}`, {})).status).toBe(404);
    expect((await srv.api("PATCH", `/comments/${c.id}`, { state: "resolved" })).status).toBe(404);
    await waitFor(() => events.frames.some((f) => f.type === "comment.deleted" && f.data.commentId === c.id), "comment.deleted event");
  });
});
