import { TaskCounts } from "@grove/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";

describe.each(DATABASES)("GET /tasks/counts (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("WEB-30 counts every state exactly under the list's filters (archived, repository, text); bad input is refused", async () => {
    srv = await startTestServer(kind);
    const api = srv.api;
    const repoA = (await api("POST", "/repositories", { path: (await makeRepo({ name: "counted-a" })).path })).body;
    const repoB = (await api("POST", "/repositories", { path: (await makeRepo({ name: "counted-b" })).path })).body;
    const make = async (title: string, repositoryId: string, state?: string) => {
      const t = (await api("POST", "/tasks", { title, repositories: [{ repositoryId }] })).body;
      if (state) expect((await api("PATCH", `/tasks/${t.id}`, { state })).status).toBe(200);
      return t;
    };
    for (let i = 0; i < 7; i++) await make(`alpha ${i}`, repoA.id);
    for (let i = 0; i < 3; i++) await make(`beta ${i}`, repoB.id, "review");
    await make("gamma done", repoA.id, "done");
    const gone = await make("gamma archived", repoB.id, "done");
    expect((await api("POST", `/tasks/${gone.id}/archive`)).status).toBe(202);

    const all = await api("GET", "/tasks/counts");
    expect(all.status).toBe(200);
    expect(TaskCounts.parse(all.body)).toEqual({ counts: { todo: 7, in_progress: 0, review: 3, done: 1, failed: 0 }, total: 11 });

    // The same filters as the list: each count equals what GET /tasks would list.
    for (const query of ["repositoryId=" + repoB.id, "q=gamma", "q=ALPHA", "archived=true", "repositoryId=" + repoA.id + "&q=done"]) {
      const counts = (await api("GET", `/tasks/counts?${query}`)).body as TaskCounts;
      const listed = (await api("GET", `/tasks?view=summary&${query}`)).body as { state: keyof TaskCounts["counts"] }[];
      const expected = { todo: 0, in_progress: 0, review: 0, done: 0, failed: 0 };
      for (const t of listed) expected[t.state] += 1;
      expect(counts, query).toEqual({ counts: expected, total: listed.length });
    }
    expect((await api("GET", "/tasks/counts?archived=true")).body.total).toBe(1);
    expect((await api("GET", "/tasks/counts?q=gamma")).body.counts.done).toBe(1);

    const bad = await api("GET", "/tasks/counts?archived=maybe");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_request");
  });
});
