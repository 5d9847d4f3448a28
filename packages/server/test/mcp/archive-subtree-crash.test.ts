import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { crashServers, type Api } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession } from "../fixture/server.js";
import { jobsOf, waitForJob } from "../lifecycle/helpers.js";

const childrenOf = async (api: Api, id: string) => (await api("GET", `/tasks?parentId=${id}`)).body as { id: string; title: string }[];

/** MCP-3.7 with the real `grove serve` and kill -9 in the middle of a cascade (LC-4 recovery). */
describe.each(DATABASES)("MCP-3.7 archive cascade crash (%s)", (kind) => {
  const crash = crashServers(kind);

  it("MCP-3.7 LC-4: kill -9 after the deepest subtask's archive committed → after restart the same request finishes the cascade, no task gets a second job, doctor is clean", async () => {
    const { start } = await crash.home();
    const repo = await makeRepo();
    crash.cleanups.push(repo.cleanup);

    // root → child (an agent with work in its worktree) → grandchild; root → sibling.
    const first = await start("archive.after_commit:exit");
    const r = await first.api("POST", "/repositories", { path: repo.path });
    const root = (await first.api("POST", "/tasks", { title: "root", repositories: [{ repositoryId: r.body.id }] })).body.id as string;
    const childPrompt = 'write c.txt wip\\nmcp subtask_create {\\"title\\":\\"grandchild\\"}';
    const s = await first.api("POST", `/tasks/${root}/sessions`, {
      prompt: `mcp subtask_create {"title":"child","agent":"scripted","prompt":"${childPrompt}"}\nmcp subtask_create {"title":"sibling"}`,
    });
    expect(s.status).toBe(201);
    await waitForSession(first.api, s.body.id, ["waiting_for_input"], 60_000);
    const kids = await childrenOf(first.api, root);
    const child = kids.find((k) => k.title === "child")!.id;
    const sibling = kids.find((k) => k.title === "sibling")!.id;
    const childSession = (await first.api("GET", `/tasks/${child}/sessions`)).body[0].id as string;
    await waitForSession(first.api, childSession, ["waiting_for_input"], 60_000);
    const grandchild = (await waitFor(async () => (await childrenOf(first.api, child))[0], "the grandchild")).id;
    const slot = (await first.api("GET", `/tasks/${child}/environment`)).body.repositories[0];

    const crashed = await first.api("POST", `/tasks/${root}/archive`, { children: "archive" }).catch(() => undefined);
    expect(crashed?.status ?? 0).not.toBe(202); // the process died before answering
    expect((await first.server.exited).code).toBe(137);

    const second = await start();
    // The deepest subtask's archive had committed; nothing above it was touched.
    expect((await second.api("GET", `/tasks/${grandchild}`)).body.archivedAt).not.toBeNull();
    for (const id of [child, sibling, root]) {
      expect((await second.api("GET", `/tasks/${id}`)).body.archivedAt, id).toBeNull();
      expect(await jobsOf(second.api, id), id).toEqual([]);
    }

    const again = await second.api("POST", `/tasks/${root}/archive`, { children: "archive" });
    expect(again.status).toBe(202);
    for (const id of [grandchild, child, sibling, root]) {
      const jobs = await jobsOf(second.api, id);
      expect(jobs, id).toHaveLength(1);
      expect(jobs[0].trigger).toBe("archive");
      expect((await waitForJob(second.api, id, jobs[0].id, ["succeeded", "failed"])).state, id).toBe("succeeded");
      expect((await second.api("GET", `/tasks/${id}`)).body.archivedAt, id).not.toBeNull();
    }
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(gitSync(repo.path, "show", `refs/grove/archived/${child}/${slot.branchSlug || "default"}:c.txt`)).toContain("wip");
    const doctor = await second.api("GET", "/doctor");
    expect(doctor.body).toMatchObject({ ok: true, findings: [] });
  });
});
