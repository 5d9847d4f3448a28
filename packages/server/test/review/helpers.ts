import { execFileSync } from "node:child_process";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { waitForSession, type TestServer } from "../fixture/server.js";

/** A registered local repository, a task on it and its first session (settled), with the worktree path. */
export async function reviewTask(srv: TestServer, opts: { files?: Record<string, string>; prompt?: string; repo?: TestRepo; title?: string } = {}) {
  const repo = opts.repo ?? (await makeRepo({ name: `repo${Math.random().toString(36).slice(2, 8)}`, ...(opts.files ? { files: opts.files } : {}) }));
  const existing = (await srv.api("GET", "/repositories")).body.find((r: any) => r.path === repo.path);
  const added = existing ? undefined : await srv.api("POST", "/repositories", { path: repo.path });
  if (added && added.status !== 201) throw new Error(`repository: ${added.status} ${JSON.stringify(added.body)}`);
  const repository = existing ?? added!.body;
  const t = await srv.api("POST", "/tasks", { title: opts.title ?? "Review me", repositories: [{ repositoryId: repository.id }] });
  if (t.status !== 201) throw new Error(`task: ${t.status} ${JSON.stringify(t.body)}`);
  const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, { prompt: opts.prompt ?? "say hi" });
  if (s.status !== 201) throw new Error(`session: ${s.status} ${JSON.stringify(s.body)}`);
  const session = await waitForSession(srv.api, s.body.id, ["waiting_for_input", "failed"]);
  const ws = (await srv.api("GET", `/sessions/${session.id}/workspace`)).body;
  return { repo, repository, task: t.body, session, worktree: ws.repositories[0].worktreePath as string, branch: ws.repositories[0].worktreeBranch as string };
}

/** The agent's text of a session, all messages joined. */
export async function agentText(srv: TestServer, sessionId: string): Promise<string> {
  const msgs = (await srv.api("GET", `/sessions/${sessionId}/messages`)).body as { role: string; text: string }[];
  return msgs
    .filter((m) => m.role === "agent")
    .map((m) => m.text)
    .join("\n");
}

/**
 * Everything git knows about a worktree's state, for byte-identical comparisons: HEAD, the
 * branch's commit, the index as a tree, the working tree (tracked and untracked) as a tree.
 */
export function snapshot(worktree: string): { head: string; index: string; files: string; status: string } {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" };
  const g = (args: string[], extra: Record<string, string> = {}) =>
    execFileSync("git", args, { cwd: worktree, env: { ...env, ...extra }, encoding: "utf8" }).trim();
  const head = g(["rev-parse", "HEAD"]);
  const index = g(["write-tree"]);
  // The working tree through a throw-away index: every file, untracked included, as git would store it.
  const tmpIndex = `${g(["rev-parse", "--git-dir"])}/grove-test-snapshot-index`;
  g(["read-tree", "--empty"], { GIT_INDEX_FILE: tmpIndex });
  g(["add", "-A", "."], { GIT_INDEX_FILE: tmpIndex });
  const files = g(["write-tree"], { GIT_INDEX_FILE: tmpIndex });
  execFileSync("rm", ["-f", tmpIndex]);
  return { head, index, files, status: g(["status", "--porcelain=v1"]) };
}
