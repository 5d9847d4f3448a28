/** One registered worktree as `git worktree list --porcelain -z` reports it. */
export interface WorktreeEntry {
  path: string;
  /** Checked-out commit; null for an unborn branch or a bare entry. */
  head: string | null;
  /** Short branch name; null when detached or bare. */
  branch: string | null;
  locked: boolean;
  prunable: boolean;
}

/**
 * Parses `git worktree list --porcelain -z`: NUL-terminated `key[ value]` attributes, records
 * separated by an empty attribute. `-z` keeps paths with newlines intact.
 */
export function parseWorktreeList(out: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  let cur: WorktreeEntry | null = null;
  for (const field of out.split("\0")) {
    if (field === "") {
      if (cur) entries.push(cur);
      cur = null;
      continue;
    }
    const space = field.indexOf(" ");
    const key = space < 0 ? field : field.slice(0, space);
    const value = space < 0 ? "" : field.slice(space + 1);
    if (key === "worktree") {
      if (cur) entries.push(cur);
      cur = { path: value, head: null, branch: null, locked: false, prunable: false };
    } else if (cur) {
      if (key === "HEAD") cur.head = /^0+$/.test(value) ? null : value;
      else if (key === "branch") cur.branch = value.replace(/^refs\/heads\//, "");
      else if (key === "locked") cur.locked = true;
      else if (key === "prunable") cur.prunable = true;
    }
  }
  if (cur) entries.push(cur);
  return entries;
}
