import { TaskSummary } from "@grove/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { openEvents, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";

/** Follows `nextCursor` until the end; returns every page. */
async function allPages(srv: TestServer, path: string, limit: number, param = "cursor"): Promise<any[][]> {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const r: { status: number; body: any } = await srv.api("GET", `${path}${sep}limit=${limit}${cursor ? `&${param}=${encodeURIComponent(cursor)}` : ""}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["items", "nextCursor"]);
    expect(r.body.items.length).toBeLessThanOrEqual(limit);
    pages.push(r.body.items);
    cursor = r.body.nextCursor;
  } while (cursor !== null && pages.length < 1000);
  return pages;
}

describe.each(DATABASES)("paged lists over HTTP (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  async function repository(name: string): Promise<{ id: string; name: string }> {
    const repo = await makeRepo({ name });
    const r = await srv!.api("POST", "/repositories", { path: repo.path });
    expect(r.status).toBe(201);
    return r.body;
  }

  async function task(title: string, repositoryIds: string[], description = ""): Promise<any> {
    const r = await srv!.api("POST", "/tasks", { title, description, repositories: repositoryIds.map((repositoryId) => ({ repositoryId })) });
    expect(r.status).toBe(201);
    return r.body;
  }

  it("paging returns every task exactly once while tasks are created and archived concurrently", async () => {
    srv = await startTestServer(kind);
    const repo = await repository("paging");
    const initial: string[] = [];
    for (let i = 0; i < 36; i++) initial.push((await task(`initial ${i}`, [repo.id])).id);
    const created: string[] = [];
    const archived = new Set<string>();
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      // While the page is read: archive one task from the front (already seen), one from the
      // back (not yet seen), and create a new one.
      const front = initial[page];
      const back = initial[initial.length - 1 - page];
      const churn = async () => {
        for (const id of [front, back]) {
          if (id === undefined || archived.has(id)) continue;
          archived.add(id);
          expect((await srv!.api("POST", `/tasks/${id}/archive`, {})).status).toBe(202);
        }
        created.push((await task(`created during page ${page}`, [repo.id])).id);
      };
      const [r]: [{ status: number; body: any }, void] = await Promise.all([
        srv.api("GET", `/tasks?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
        churn(),
      ]);
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((t: { id: string }) => t.id));
      cursor = r.body.nextCursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length); // never twice
    const known = new Set([...initial, ...created]);
    for (const id of seen) expect(known.has(id)).toBe(true);
    // Every task that stayed active throughout was returned.
    for (const id of initial.filter((x) => !archived.has(x))) expect(seen).toContain(id);
    // Tasks archived after their page was read were returned too (once).
    for (const id of initial.slice(0, 5)) expect(seen).toContain(id);
  });

  it("filters combine: state, repository, text and archived, paged or not", async () => {
    srv = await startTestServer(kind);
    const a = await repository("alpha-repo");
    const b = await repository("beta-repo");
    const specs = [
      { title: "Alpha widget", description: "", repos: [a.id], state: "todo" },
      { title: "alpha gadget", description: "the WIDGET too", repos: [b.id], state: "review" },
      { title: "Both repos", description: "widget", repos: [a.id, b.id], state: "review" },
      { title: "Discount 100% off", description: "", repos: [a.id], state: "done" },
      { title: "Discount 1000 off", description: "", repos: [b.id], state: "done" },
      { title: "snake a_b", description: "", repos: [a.id], state: "review" },
      { title: "snake axb", description: "", repos: [a.id], state: "review" },
      { title: "Old widget", description: "", repos: [a.id], state: "done", archive: true },
      { title: "Old gadget", description: "", repos: [b.id], state: "review", archive: true },
    ];
    for (const s of specs) {
      const t = await task(s.title, s.repos, s.description);
      if (s.state !== "todo") expect((await srv.api("PATCH", `/tasks/${t.id}`, { state: s.state })).status).toBe(200);
      if (s.archive) expect((await srv.api("POST", `/tasks/${t.id}/archive`, {})).status).toBe(202);
    }
    const all = [...(await srv.api("GET", "/tasks")).body, ...(await srv.api("GET", "/tasks?archived=true")).body];
    expect(all).toHaveLength(specs.length);

    const combos: { archived?: boolean; state?: string[]; repositoryId?: string; q?: string }[] = [
      { q: "widget" },
      { q: "WIDGET", state: ["review"] },
      { q: "widget", repositoryId: a.id },
      { q: "widget", archived: true },
      { state: ["review"], repositoryId: b.id },
      { state: ["review", "done"], repositoryId: a.id },
      { state: ["done"], archived: true },
      { repositoryId: b.id, archived: true, q: "gad" },
      { q: "100%" },
      { q: "a_b" },
      { q: "ga" },
      { q: "nothing like this" },
    ];
    for (const c of combos) {
      const needle = c.q?.toLowerCase();
      const expected = all
        .filter((t) => (t.archivedAt !== null) === (c.archived ?? false))
        .filter((t) => !c.state || c.state.includes(t.state))
        .filter((t) => !c.repositoryId || t.repositories.some((x: { repositoryId: string }) => x.repositoryId === c.repositoryId))
        .filter((t) => !needle || `${t.title}\n${t.description}`.toLowerCase().includes(needle))
        .map((t) => t.id)
        .sort();
      const qs = new URLSearchParams();
      if (c.archived !== undefined) qs.set("archived", String(c.archived));
      if (c.state) qs.set("state", c.state.join(","));
      if (c.repositoryId) qs.set("repositoryId", c.repositoryId);
      if (c.q) qs.set("q", c.q);
      const plain = await srv.api("GET", `/tasks?${qs}`);
      expect(plain.status).toBe(200);
      expect(plain.body.map((t: { id: string }) => t.id).sort(), JSON.stringify(c)).toEqual(expected);
      const paged = (await allPages(srv, `/tasks?${qs}`, 2)).flat();
      expect(paged.map((t: { id: string }) => t.id).sort(), JSON.stringify(c)).toEqual(expected);
    }
    expect(expected(all, "100%")).toEqual(["Discount 100% off"]);
  });

  it("the board's summary matches the full task, and task.summary frames carry agent state and diff stat", async () => {
    srv = await startTestServer(kind);
    const events = await openEvents(srv.url);
    const a = await repository("summary-a");
    const b = await repository("summary-b");
    const idle = await task("Idle two-repo task", [b.id, a.id]);
    const busy = await task("Busy task", [a.id]);
    const s = await srv.api("POST", `/tasks/${busy.id}/sessions`, { prompt: "write notes.txt one\\ntwo\\nthree\nsay done" });
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    // The task's state is derived after the session's own state is written, so the session can
    // read as waiting a moment before its task reads as review; both lists must see the same.
    const api = srv.api;
    await waitFor(async () => (await api("GET", `/tasks/${busy.id}`)).body.state === "review", "the busy task in review");
    const changes = (await srv.api("GET", `/tasks/${busy.id}/changes`)).body;
    const files = changes.repositories.flatMap((r: { files: { additions: number; deletions: number }[] }) => r.files);

    const full = (await srv.api("GET", "/tasks")).body as any[];
    const summaries = (await srv.api("GET", "/tasks?view=summary")).body as any[];
    expect(summaries.map((x) => x.id)).toEqual(full.map((x) => x.id));
    for (const [i, sum] of summaries.entries()) {
      TaskSummary.parse(sum);
      const t = full[i];
      for (const k of ["id", "title", "state", "archivedAt", "createdAt", "updatedAt"] as const) expect(sum[k]).toEqual(t[k]);
      expect(sum.repositories.map((r: { repositoryId: string }) => r.repositoryId)).toEqual(
        t.repositories.map((r: { repositoryId: string }) => r.repositoryId),
      );
    }
    const idleSum = summaries.find((x) => x.id === idle.id);
    expect(idleSum.repositories).toEqual([
      { repositoryId: b.id, name: b.name, branch: "main" },
      { repositoryId: a.id, name: a.name, branch: "main" },
    ]);
    expect(idleSum.agent).toEqual({ state: "none" });
    expect(idleSum.diffStat).toBeNull();
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    const busySum = summaries.find((x) => x.id === busy.id);
    expect(busySum.repositories).toEqual([{ repositoryId: a.id, name: a.name, branch: ws.repositories[0].worktreeBranch }]);
    expect(busySum.state).toBe("review");
    expect(busySum.agent).toEqual({ state: "waiting", sessionId: s.body.id });
    expect(busySum.diffStat).toEqual({
      files: files.length,
      additions: files.reduce((n: number, f: { additions: number }) => n + f.additions, 0),
      deletions: files.reduce((n: number, f: { deletions: number }) => n + f.deletions, 0),
    });
    expect(busySum.diffStat.files).toBeGreaterThan(0);

    // The page never refetches: frames bring the same summary the list gives. The diff stat is
    // recomputed at most every 5 s per task, so an earlier frame may carry the stat of a moment
    // before the agent's write (the worktree's first change event); the frames converge on it.
    const same = (x: unknown) => JSON.stringify(x) === JSON.stringify(busySum);
    const frame = await waitFor(
      () => [...events.frames].reverse().find((f) => f.type === "task.summary" && f.data.summary.id === busy.id && same(f.data.summary)),
      "a task.summary frame equal to the list's summary (agent waiting, the diff stat)",
    );
    expect(frame.data.summary).toEqual(busySum);
    const paged = (await allPages(srv, "/tasks?view=summary", 1)).flat();
    expect(paged).toEqual(summaries);
    events.close();
  });

  it("order=newest pages the board's list newest first, every task once, filters still combining", async () => {
    srv = await startTestServer(kind);
    const a = await repository("newest-a");
    const b = await repository("newest-b");
    const made: any[] = [];
    for (let i = 0; i < 7; i++) made.push(await task(`newest ${i}`, [i % 2 ? b.id : a.id]));
    const oldest = (await allPages(srv, "/tasks?view=summary", 3)).flat().map((t) => t.id);
    expect(oldest).toEqual(made.map((t) => t.id));
    const newest = (await allPages(srv, "/tasks?view=summary&order=newest", 3)).flat().map((t) => t.id);
    expect(newest).toEqual([...oldest].reverse());
    const onlyB = (await allPages(srv, `/tasks?order=newest&repositoryId=${b.id}`, 2)).flat().map((t) => t.id);
    expect(onlyB).toEqual(
      made
        .filter((_, i) => i % 2)
        .map((t) => t.id)
        .reverse(),
    );
    expect((await srv.api("GET", "/tasks?order=sideways")).status).toBe(400);
  });

  it("sessions, messages (from the newest) and cleanup jobs page without gaps or repeats", async () => {
    srv = await startTestServer(kind);
    const repo = await repository("pages");
    const t = await task("Paged things", [repo.id]);
    const script = Array.from({ length: 6 }, (_, i) => `write f${i}.txt ${i}`).join("\n");
    const s1 = await srv.api("POST", `/tasks/${t.id}/sessions`, { prompt: script });
    await waitForSession(srv.api, s1.body.id, ["waiting_for_input"]);
    for (let i = 0; i < 2; i++) {
      const s = await srv.api("POST", `/tasks/${t.id}/sessions`, {});
      expect(s.status).toBe(201);
    }
    const sessions = (await srv.api("GET", `/tasks/${t.id}/sessions`)).body;
    expect(sessions).toHaveLength(3);
    expect((await allPages(srv, `/tasks/${t.id}/sessions`, 2)).flat()).toEqual(sessions);

    const messages = (await srv.api("GET", `/sessions/${s1.body.id}/messages`)).body as any[];
    expect(messages.length).toBeGreaterThan(6);
    const pages = await allPages(srv, `/sessions/${s1.body.id}/messages`, 4, "before");
    // The first page holds the newest messages; each page is oldest first within itself.
    expect(pages[0]).toEqual(messages.slice(-4));
    expect([...pages].reverse().flat()).toEqual(messages);

    for (const other of [await task("Archive me", [repo.id]), await task("And me", [repo.id])]) {
      expect((await srv.api("POST", `/tasks/${other.id}/archive`, {})).status).toBe(202);
    }
    const jobs = (await srv.api("GET", "/cleanup-jobs")).body;
    expect(jobs).toHaveLength(2);
    expect((await allPages(srv, "/cleanup-jobs", 1)).flat().map((j: { id: string }) => j.id)).toEqual(jobs.map((j: { id: string }) => j.id));
  });

  it("SEC-3 a bad limit or cursor is 400 invalid_request", async () => {
    srv = await startTestServer(kind);
    const repo = await repository("bad");
    const t = await task("Bad input", [repo.id]);
    for (const path of [
      "/tasks?limit=0",
      "/tasks?limit=501",
      "/tasks?limit=ten",
      "/tasks?limit=5&cursor=not-a-cursor",
      "/tasks?cursor=WyJ4IiwieSJd",
      "/tasks?state=sleeping",
      "/tasks?view=tiny",
      `/tasks/${t.id}/sessions?limit=2&cursor=%00`,
      "/cleanup-jobs?limit=2&cursor=bad",
    ]) {
      const r = await srv.api("GET", path);
      expect(r.status, path).toBe(400);
      expect(r.body.error.code, path).toBe("invalid_request");
    }
  });
});

function expected(all: { title: string; description: string }[], q: string): string[] {
  return all.filter((t) => `${t.title}\n${t.description}`.toLowerCase().includes(q.toLowerCase())).map((t) => t.title);
}
