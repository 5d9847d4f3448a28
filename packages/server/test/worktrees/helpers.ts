import { existsSync } from "node:fs";
import { makeRepo, gitSync, type TestRepo } from "../fixture/git.js";
import type { TestServer } from "../fixture/server.js";

/** Registers a fresh temp repository named `name` (the checkout's directory name). */
export async function registerRepo(
  srv: TestServer,
  name: string,
  extra: Record<string, unknown> = {},
  files?: Record<string, string>,
): Promise<{ repo: TestRepo; id: string }> {
  const repo = await makeRepo({ name, ...(files && { files }) });
  const r = await srv.api("POST", "/repositories", { path: repo.path, ...extra });
  if (r.status !== 201) throw new Error(`repository ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return { repo, id: r.body.id as string };
}

/** Paths of `git worktree list --porcelain` other than the main checkout. */
export function linkedWorktrees(repo: TestRepo): string[] {
  return gitSync(repo.path, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length))
    .filter((p) => p !== repo.path);
}

/** Local branch names. */
export function branchesOf(repo: TestRepo): string[] {
  return repo.git("for-each-ref", "--format=%(refname:short)", "refs/heads/").split("\n").filter(Boolean).sort();
}

export const exists = existsSync;
