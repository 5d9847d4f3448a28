import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { apiClient, serverPerTest, spawnServer, waitFor, waitForSession, type ChildServer } from "../fixture/server.js";
import { briefTask, mcpAnswers, messages } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

type Item = { id: string; kind: string; taskId: string; sessionId?: string; title: string; state: string; choices?: string[]; answer?: string };

// MCP-3: ask_user questions are inbox items that survive a restart; the answer reaches the
// (resumed) session.
describe.each(ONE_DATABASE)("MCP-3 ask_user (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("MCP-3: ask_user is an open question item with its choices; a wrong choice is refused; the answer returns from the waiting call and the turn goes on", async () => {
    const srv = await perTest.start();
    const { task } = await briefTask(srv, "Paint", "paint it");
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: 'mcp ask_user {"question":"Blue or red?","choices":["blue","red"]}\nsay painting it',
    });
    const item = await waitFor(async () => ((await srv.api("GET", "/inbox")).body as Item[]).find((i) => i.kind === "question"), "the question item");
    expect(item).toMatchObject({ taskId: task.id, sessionId: s.body.id, state: "open", title: "Paint: Blue or red?", choices: ["blue", "red"] });
    const wrong = await srv.api("POST", `/inbox/${item.id}/answer`, { answer: "green" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: "invalid_request", details: { field: "answer" } });
    const ok = await srv.api("POST", `/inbox/${item.id}/answer`, { answer: "blue" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: item.id, state: "done", answer: "blue" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await mcpAnswers(srv, s.body.id))[0]).toEqual({ answer: "blue" });
    expect((await messages(srv, s.body.id)).some((m) => m.role === "agent" && m.text === "painting it")).toBe(true);
    // Answered once: a second answer is refused, the item stays done with its answer.
    expect((await srv.api("POST", `/inbox/${item.id}/answer`, { answer: "red" })).status).toBe(400);
    expect(((await srv.api("GET", "/inbox?state=all")).body as Item[]).find((i) => i.id === item.id)).toMatchObject({ state: "done", answer: "blue" });
    // Not a question: refused.
    const other = ((await srv.api("GET", "/inbox?state=all")).body as Item[]).find((i) => i.kind !== "question");
    if (other) expect((await srv.api("POST", `/inbox/${other.id}/answer`, { answer: "x" })).status).toBe(400);
    expect((await srv.api("POST", "/inbox/inbox_missing/answer", { answer: "x" })).status).toBe(404);
  });

  it("MCP-3: an unanswered question times out with question_timeout and its item is done", async () => {
    const srv = await perTest.start();
    const { task } = await briefTask(srv, "Wait", "w");
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: 'mcp ask_user {"question":"Anyone?","timeoutSeconds":1}' });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await mcpAnswers(srv, s.body.id))[0].error).toMatchObject({ code: "question_timeout", details: { timeoutSeconds: 1 } });
    const item = ((await srv.api("GET", "/inbox?state=all")).body as Item[]).find((i) => i.kind === "question")!;
    expect(item.state).toBe("done");
    expect((await srv.api("POST", `/inbox/${item.id}/answer`, { answer: "me" })).status).toBe(400);
  });
});

describe.each(ONE_DATABASE)("MCP-3 ask_user across kill -9 (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  it("MCP-3: kill -9 of the server while ask_user waits → after the restart the question is still in the inbox, and its answer reaches the resumed session as its next prompt", async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    const start = async (): Promise<{ server: ChildServer; api: ReturnType<typeof apiClient> }> => {
      const server = await spawnServer({ GROVE_HOME: db.home, GROVE_DATABASE_URL: db.databaseUrl });
      cleanups.push(async () => {
        server.child.kill("SIGKILL");
        await server.exited;
      });
      return { server, api: apiClient(server.url) };
    };
    const first = await start();
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await first.api("POST", "/repositories", { path: repo.path });
    const t = await first.api("POST", "/tasks", { title: "Survive", repositories: [{ repositoryId: r.body.id }] });
    const s = await first.api("POST", `/tasks/${t.body.id}/sessions`, { prompt: 'mcp ask_user {"question":"Ship it?","choices":["yes","no"]}' });
    const item = await waitFor(async () => ((await first.api("GET", "/inbox")).body as Item[]).find((i) => i.kind === "question"), "the question item");
    first.server.child.kill("SIGKILL");
    await first.server.exited;

    const second = await start();
    const open = ((await second.api("GET", "/inbox")).body as Item[]).find((i) => i.id === item.id);
    expect(open).toMatchObject({ kind: "question", state: "open", choices: ["yes", "no"], sessionId: s.body.id });
    await waitForSession(second.api, s.body.id, ["waiting_for_input"]);
    const answered = await second.api("POST", `/inbox/${item.id}/answer`, { answer: "yes" });
    expect(answered.status).toBe(200);
    // The session's agent is started again (session/load) and gets the answer as its prompt.
    const got = await waitFor(async () => {
      const msgs = (await second.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
      return msgs.find((m) => m.role === "agent" && m.text.includes("ok: > yes"));
    }, "the answer in the resumed session");
    expect(got).toBeTruthy();
    const msgs = (await second.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
    expect(
      msgs.some((m) => m.role === "user" && m.text.startsWith("Answer to your question") && m.text.includes("> Ship it?") && m.text.endsWith("> yes")),
    ).toBe(true);
    await waitForSession(second.api, s.body.id, ["waiting_for_input"]);
    expect(((await second.api("GET", "/inbox?state=all")).body as Item[]).find((i) => i.id === item.id)).toMatchObject({ state: "done", answer: "yes" });
  });
});
