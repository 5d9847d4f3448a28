import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { serverPerFile, waitForSession, type TestServer } from "../fixture/server.js";
import { jobsOf, processGone, waitForJob } from "../lifecycle/helpers.js";
import { briefTask, callTool, captureTokens, runSession, shimClient } from "./helpers.js";

/**
 * A subtask tree made the way agents make it: `subtask_create` through the real MCP shim of a
 * session on the root. `spec` maps a name to its parent's name (`root` for the root) and, for
 * a child that starts an agent, its prompt.
 */
async function subtaskTree(srv: TestServer, tokens: Map<string, string[]>, spec: [name: string, parent: string, prompt?: string][]) {
  const { task: root, repo } = await briefTask(srv, "Root", "split me");
  const sid = await runSession(srv, root.id, "say ready");
  const client = await shimClient(srv, sid, tokens.get(sid)![0]!);
  const ids: Record<string, string> = { root: root.id };
  const sessions: Record<string, string> = {};
  try {
    for (const [name, parent, prompt] of spec) {
      const r = await callTool(client, "subtask_create", { taskId: ids[parent], title: name, ...(prompt ? { agent: "scripted", prompt } : {}) });
      expect(r.isError, JSON.stringify(r.json)).toBe(false);
      ids[name] = r.json.task.id;
      if (r.json.session) sessions[name] = r.json.session.id;
    }
  } finally {
    await client.close();
  }
  for (const s of Object.values(sessions)) await waitForSession(srv.api, s, ["waiting_for_input"], 60_000);
  return { ids, sessions, repo, rootSession: sid };
}

const archivedAt = async (srv: TestServer, id: string) => (await srv.api("GET", `/tasks/${id}`)).body.archivedAt as string | null;

// MCP-3.7: a parent's archive asks what becomes of its open subtasks.
describe.each(ONE_DATABASE)("MCP-3.7 archiving a task with subtasks (%s)", (kind) => {
  const perFile = serverPerFile(kind);

  it("MCP-3.7: without children the archive is refused with task_has_children naming every open subtask (at any depth, not the archived one); a bad value is 400; nothing changes, no job", async () => {
    const srv = await perFile.start();
    const tokens = captureTokens(srv);
    const { ids } = await subtaskTree(srv, tokens, [
      ["child", "root"],
      ["grandchild", "child"],
      ["done", "root"],
    ]);
    const archived = await srv.api("POST", `/tasks/${ids.done}/archive`);
    expect(archived.status).toBe(202);
    await waitForJob(srv.api, ids.done!, archived.body.jobId, ["succeeded"]);
    const doneJobs = await jobsOf(srv.api, ids.done!);

    const refused = await srv.api("POST", `/tasks/${ids.root}/archive`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "task_has_children", details: { taskId: ids.root, children: [ids.child, ids.grandchild] } });
    expect(refused.body.error.message).toContain('children: "archive"');
    expect((await srv.api("POST", `/tasks/${ids.root}/archive`, { children: "sideways" })).status).toBe(400);
    for (const name of ["root", "child", "grandchild"]) {
      expect(await archivedAt(srv, ids[name]!), name).toBeNull();
      expect(await jobsOf(srv.api, ids[name]!), name).toEqual([]);
    }
    expect(await jobsOf(srv.api, ids.done!)).toEqual(doneJobs);
  });

  it("MCP-3.7: children keep archives only the task; its subtasks stay open and linked, with no job", async () => {
    const srv = await perFile.start();
    const tokens = captureTokens(srv);
    const { ids } = await subtaskTree(srv, tokens, [
      ["child", "root", "write kid.txt hello"],
      ["grandchild", "child"],
    ]);
    const r = await srv.api("POST", `/tasks/${ids.root}/archive`, { children: "keep" });
    expect(r.status).toBe(202);
    expect((await waitForJob(srv.api, ids.root!, r.body.jobId, ["succeeded", "failed"])).state).toBe("succeeded");
    expect(await archivedAt(srv, ids.root!)).not.toBeNull();
    for (const name of ["child", "grandchild"]) {
      expect(await archivedAt(srv, ids[name]!), name).toBeNull();
      expect(await jobsOf(srv.api, ids[name]!), name).toEqual([]);
    }
    expect((await srv.api("GET", `/tasks/${ids.child}`)).body.parentId).toBe(ids.root);
    expect((await srv.api("GET", `/tasks/${ids.grandchild}`)).body.parentId).toBe(ids.child);
    const childEnv = (await srv.api("GET", `/tasks/${ids.child}/environment`)).body;
    expect(childEnv.repositories[0].status).toBe("active");
    expect(existsSync(`${childEnv.repositories[0].worktreePath}/kid.txt`)).toBe(true);
  });

  it("MCP-3.7: children archive archives the whole open subtree (below an archived subtask too) through one ordinary archive job each, deepest first, the task last", async () => {
    const srv = await perFile.start();
    const tokens = captureTokens(srv);
    const { ids, sessions, repo } = await subtaskTree(srv, tokens, [
      ["a", "root", "write a.txt work\ncommit a work\nwrite a-wip.txt wip"],
      ["a1", "a", "write a1.txt work"],
      ["b", "root"],
      ["kept", "root"],
      ["kept1", "kept"],
    ]);
    // `kept` was archived alone before; its open subtask still belongs to the root's open subtree.
    expect((await srv.api("POST", `/tasks/${ids.kept}/archive`, { children: "keep" })).status).toBe(202);
    await waitForJob(srv.api, ids.kept!, (await jobsOf(srv.api, ids.kept!))[0].id, ["succeeded"]);
    const pids = Object.fromEntries(Object.entries(sessions).map(([name, s]) => [name, srv.server.deps.agents.get(s)?.pid]));
    const envs = Object.fromEntries(
      await Promise.all(["a", "a1"].map(async (n) => [n, (await srv.api("GET", `/tasks/${ids[n]}/environment`)).body.repositories[0]] as const)),
    );
    const reserved: string[] = [];
    const unsubscribe = srv.server.deps.bus.subscribe((f) => {
      if (f.type === "cleanup_job.updated" && (f.data as any).job.state === "prepared") reserved.push((f.data as any).job.taskId);
    });
    try {
      const r = await srv.api("POST", `/tasks/${ids.root}/archive`, { children: "archive" });
      expect(r.status).toBe(202);
      expect((await waitForJob(srv.api, ids.root!, r.body.jobId, ["succeeded", "failed"])).state).toBe("succeeded");
    } finally {
      unsubscribe();
    }
    const name = Object.fromEntries(Object.entries(ids).map(([n, id]) => [id, n]));
    // Deepest first (the order within a level is the tree's, by creation time), the task last.
    const order = reserved.map((id) => name[id]);
    expect(order).toHaveLength(5);
    expect(order.slice(0, 2).sort()).toEqual(["a1", "kept1"]);
    expect(order.slice(2, 4).sort()).toEqual(["a", "b"]);
    expect(order[4]).toBe("root");
    for (const n of ["root", "a", "a1", "b", "kept1"]) {
      expect(await archivedAt(srv, ids[n]!), n).not.toBeNull();
      const jobs = await jobsOf(srv.api, ids[n]!);
      expect(jobs, n).toHaveLength(1);
      expect((await waitForJob(srv.api, ids[n]!, jobs[0].id, ["succeeded", "failed"])).state, n).toBe("succeeded");
      expect(jobs[0].trigger, n).toBe("archive");
    }
    expect(await jobsOf(srv.api, ids.kept!)).toHaveLength(1);
    // The ordinary archive ran on each: agents gone, worktrees removed, branch kept, work saved.
    expect(processGone(pids.a) && processGone(pids.a1)).toBe(true);
    for (const n of ["a", "a1"]) expect(existsSync(envs[n].worktreePath), n).toBe(false);
    const repoPath = repo.path;
    expect(gitSync(repoPath, "log", "-1", "--format=%s", envs.a.worktreeBranch).trim()).toBe("a work");
    expect(gitSync(repoPath, "show", `refs/grove/archived/${ids.a}/${envs.a.branchSlug || "default"}:a-wip.txt`)).toContain("wip");
  });

  it("MCP-3.7: subtask_create under an archived subtask is refused task_archived and creates nothing", async () => {
    const srv = await perFile.start();
    const tokens = captureTokens(srv);
    const { ids, rootSession } = await subtaskTree(srv, tokens, [["child", "root"]]);
    const archived = await srv.api("POST", `/tasks/${ids.child}/archive`);
    expect(archived.status).toBe(202);
    await waitForJob(srv.api, ids.child!, archived.body.jobId, ["succeeded"]);
    const client = await shimClient(srv, rootSession, tokens.get(rootSession)![0]!);
    try {
      const refused = await callTool(client, "subtask_create", { taskId: ids.child, title: "late" });
      expect(refused).toMatchObject({ isError: true, json: { error: { code: "task_archived" } } });
      expect((await srv.api("GET", `/tasks?parentId=${ids.child}&archived=false`)).body).toEqual([]);
      expect((await srv.api("GET", `/tasks?parentId=${ids.child}&archived=true`)).body).toEqual([]);
      expect((await callTool(client, "subtask_create", { title: "still fine" })).isError).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("MCP-3.7: a subtask that cannot be archived (a reset job active) refuses the whole tree: nothing archived, no job written, the deeper subtask untouched", async () => {
    const srv = await perFile.start();
    const tokens = captureTokens(srv);
    const { ids, repo } = await subtaskTree(srv, tokens, [
      ["busy", "root", "write busy.txt x"],
      ["deep", "busy"],
      ["other", "root"],
    ]);
    const slot = (await srv.api("GET", `/tasks/${ids.busy}/environment`)).body.repositories[0];
    // A locked worktree keeps the reset job active (retry_wait) until it is unlocked.
    gitSync(repo.path, "worktree", "lock", "--reason", "held by the test", slot.worktreePath);
    try {
      const reset = await srv.api("POST", `/tasks/${ids.busy}/environment/reset`);
      expect(reset.status).toBe(202);
      expect((await waitForJob(srv.api, ids.busy!, reset.body.jobId, ["retry_wait", "succeeded", "failed"])).state).toBe("retry_wait");

      const refused = await srv.api("POST", `/tasks/${ids.root}/archive`, { children: "archive" });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({
        code: "task_cleanup_in_progress",
        details: { taskId: ids.busy, subtaskOf: ids.root, jobId: reset.body.jobId },
      });
      expect(refused.body.error.message).toContain(`subtask ${ids.busy}`);
      for (const n of ["root", "busy", "deep", "other"]) expect(await archivedAt(srv, ids[n]!), n).toBeNull();
      for (const n of ["root", "deep", "other"]) expect(await jobsOf(srv.api, ids[n]!), n).toEqual([]);
      expect((await jobsOf(srv.api, ids.busy!)).map((j) => j.trigger)).toEqual(["environment_reset"]);
    } finally {
      gitSync(repo.path, "worktree", "unlock", slot.worktreePath);
    }
  });
});
