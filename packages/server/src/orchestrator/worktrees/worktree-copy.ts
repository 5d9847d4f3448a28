import { constants } from "node:fs";
import { copyFile, lstat, mkdir, readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, sep } from "node:path";

/** The outcome of copying the copy-files globs into a new worktree (WT-9). */
export interface CopyReport {
  copied: string[];
  /** Human-readable reasons for files that were matched but not copied. */
  skipped: string[];
}

const MAX_MATCHES = 10_000;
const isGlob = (seg: string): boolean => /[*?[]/.test(seg);

/** One path segment of a glob as a regular expression: `*`, `?`, `[...]`; everything else literal. */
function segmentRegex(seg: string): RegExp {
  let re = "";
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const end = seg.indexOf("]", i + 1);
      if (end < 0) re += "\\[";
      else {
        const body = seg
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\");
        re += `[${body}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

const inside = (root: string, p: string): boolean => p === root || p.startsWith(root + sep);

/**
 * Expands relative globs (`*`, `?`, `[…]` within a segment, `**` across directories) against
 * `root` without following symlinked directories and never entering `.git`. Answers relative
 * paths of matches that are files or symlinks, sorted, at most 10,000.
 */
export async function expandGlobs(root: string, globs: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  const walk = async (rel: string, segs: string[], i: number): Promise<void> => {
    if (found.size >= MAX_MATCHES) return;
    const seg = segs[i];
    if (seg === undefined) return;
    const last = i === segs.length - 1;
    if (seg === "**") {
      if (!last) await walk(rel, segs, i + 1);
      for (const e of await readdir(join(root, rel), { withFileTypes: true }).catch(() => [])) {
        if (e.name === ".git") continue;
        const child = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) await walk(child, segs, i);
        else if (last) found.add(child);
      }
      return;
    }
    const names = isGlob(seg) ? (await readdir(join(root, rel)).catch(() => [] as string[])).filter((n) => n !== ".git" && segmentRegex(seg).test(n)) : [seg];
    for (const name of names) {
      const child = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(root, child)).catch(() => undefined);
      if (!st) continue;
      if (last && (st.isFile() || st.isSymbolicLink())) found.add(child);
      else if (!last && st.isDirectory()) await walk(child, segs, i + 1);
    }
  };
  for (const g of globs) await walk("", g.split("/"), 0);
  return [...found].sort();
}

/** Creates `relDir` under `root` one component at a time, refusing to pass through a symlink. */
async function safeMkdir(root: string, relDir: string): Promise<boolean> {
  let cur = root;
  for (const part of relDir.split("/").filter(Boolean)) {
    cur = join(cur, part);
    const st = await lstat(cur).catch(() => undefined);
    if (!st) await mkdir(cur);
    else if (!st.isDirectory()) return false;
  }
  return true;
}

/**
 * WT-9: copies the files matching `globs` (typically ignored files such as `.env`) from the
 * source checkout into a new worktree. Never follows a symlink out of the source (a symlink
 * is copied as its target's content only if that target is a file inside the checkout),
 * never writes through a symlink inside the worktree, and never overwrites a file that is
 * already there (a tracked file wins).
 */
export async function copyIntoWorktree(sourceRoot: string, worktreeRoot: string, globs: readonly string[]): Promise<CopyReport> {
  const report: CopyReport = { copied: [], skipped: [] };
  if (globs.length === 0) return report;
  const src = await realpath(sourceRoot);
  const dst = await realpath(worktreeRoot);
  for (const rel of await expandGlobs(src, globs)) {
    let from = join(src, rel);
    const st = await lstat(from);
    if (st.isSymbolicLink()) {
      const real = await realpath(from).catch(() => undefined);
      if (!real || !inside(src, real) || !(await stat(real)).isFile()) {
        report.skipped.push(`${rel}: a symlink pointing outside the checkout (not followed)`);
        continue;
      }
      from = real;
    }
    const relDir = dirname(rel) === "." ? "" : dirname(rel);
    if (!(await safeMkdir(dst, relDir))) {
      report.skipped.push(`${rel}: its directory in the worktree is a symlink or a file`);
      continue;
    }
    try {
      await copyFile(from, join(dst, rel), constants.COPYFILE_EXCL);
      report.copied.push(rel);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      report.skipped.push(code === "EEXIST" ? `${rel}: already in the worktree (kept)` : `${rel}: ${(e as Error).message}`);
    }
  }
  return report;
}
