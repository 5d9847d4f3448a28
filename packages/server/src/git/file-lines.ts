import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitRunner } from "./runner.js";

/** A file's text split into lines (a final newline does not open an empty last line). */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => l.replace(/\r$/, ""));
}

/**
 * The lines of `path` (relative, already confined to the worktree) on one side of a review:
 * `new` = the working tree as it is now (uncommitted edits included, what the person reads in
 * Changes); `old` = the file in `commit` (the merge-base). null when the file does not exist there.
 */
export async function linesOnSide(git: GitRunner, input: { worktreePath: string; path: string; side: "new" | "old"; commit: string | null }): Promise<string[] | null> {
  if (input.side === "new") {
    try {
      return splitLines(await readFile(join(input.worktreePath, input.path), "utf8"));
    } catch {
      return null;
    }
  }
  if (input.commit === null) return null;
  // `<commit>:<path>` is one argument git parses itself; the path was confined by the caller.
  const r = await git.run(["show", "--no-textconv", `${input.commit}:${input.path}`], { cwd: input.worktreePath, okExitCodes: [128], maxStdoutBytes: 32 * 1024 * 1024 });
  return r.exitCode === 0 ? splitLines(r.stdout) : null;
}

/** The commit HEAD names in the worktree. */
export async function headCommit(git: GitRunner, worktreePath: string): Promise<string> {
  return (await git.run(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: worktreePath })).stdout.trim();
}
