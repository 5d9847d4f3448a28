import { readlink, realpath } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";
import { readPlainText } from "./plain-file.js";
import type { GitRunner } from "./runner.js";
import { workTreeOf, type GitCwd } from "./worktree-link.js";

/** A file's text split into lines (a final newline does not open an empty last line). */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => l.replace(/\r$/, ""));
}

const MAX_FILE_BYTES = 32 * 1024 * 1024;

/**
 * SEC-2 / SBX-4 on every read: the text of `rel` inside `root`, or null when it does not exist,
 * is not a regular file, or resolves outside `root`. The last component is opened without
 * following a symlink, and the opened descriptor's own path (`/proc/self/fd`) must still lie
 * inside the real root, so a symlink swapped in after any earlier check cannot lead the read out.
 */
export async function readConfinedText(root: string, rel: string): Promise<string | null> {
  if (rel === "" || isAbsolute(rel) || rel.includes("\0")) return null;
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return null;
  }
  // The plain-file reader (a regular file, no final symlink, never blocking, bounded), and the
  // opened descriptor's own path (`/proc/self/fd`) must still lie inside the real root.
  const path = join(realRoot, rel);
  return readPlainText(path, MAX_FILE_BYTES, async (handle) => {
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    const where = opened ?? (await realpath(path).catch(() => null));
    return where !== null && where.startsWith(realRoot + sep);
  });
}

/**
 * The lines of `path` (relative, already confined to the worktree) on one side of a review:
 * `new` = the working tree as it is now (uncommitted edits included, what the person reads in
 * Changes), read confined to the worktree every time; `old` = the file in `commit` (the
 * merge-base). null when the file does not exist there (or, on the new side, leads outside).
 */
export async function linesOnSide(
  git: GitRunner,
  input: { worktreePath: GitCwd; path: string; side: "new" | "old"; commit: string | null },
): Promise<string[] | null> {
  if (input.side === "new") {
    const text = await readConfinedText(workTreeOf(input.worktreePath), input.path);
    return text === null ? null : splitLines(text);
  }
  if (input.commit === null) return null;
  // `<commit>:<path>` is one argument git parses itself; the path was confined by the caller.
  const r = await git.run(["show", "--no-textconv", `${input.commit}:${input.path}`], {
    cwd: input.worktreePath,
    okExitCodes: [128],
    maxStdoutBytes: MAX_FILE_BYTES,
  });
  return r.exitCode === 0 ? splitLines(r.stdout) : null;
}

/** The commit HEAD names in the worktree. */
export async function headCommit(git: GitRunner, worktreePath: GitCwd): Promise<string> {
  return (await git.run(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: worktreePath })).stdout.trim();
}
