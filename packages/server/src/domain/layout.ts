import { AppError } from "./errors.js";

/** WT-1 and WT-2: where a task's worktrees live and how their branches are named (pure). */

export function slugify(text: string, max = 24): string {
  const s = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, max)
    .replace(/-+$/g, "");
  return s || "task";
}

/** `<title-slug>-<short id>`, fixed when the task is created. */
export function taskDirName(title: string, taskId: string): string {
  const short = taskId
    .replace(/^[a-z]+_/, "")
    .slice(0, 8)
    .toLowerCase();
  return `${slugify(title)}-${short}`;
}

/**
 * The title slug a task was created with, recovered from its fixed directory name. Branch names
 * are rendered from it rather than from the current title, so a renamed task plans the same
 * branches on every attempt (a retry after a crash finds and adopts its own worktree).
 */
export function creationTitleSlug(dirName: string): string {
  const i = dirName.lastIndexOf("-");
  return i > 0 ? dirName.slice(0, i) : dirName;
}

/** Identity of a slot within a repository: the branch it checks out or starts from. */
export function slotSlug(att: { baseBranch: string; checkoutBranch: string | null; prNumber: number | null }): string {
  if (att.prNumber !== null) return `pr-${att.prNumber}`;
  return slugify(att.checkoutBranch ?? att.baseBranch, 60);
}

/** `<repoName>` for the first slot of a repository, `<repoName>-<slug>` for later ones; never nested. */
export function slotDirName(repoName: string, slug: string, firstOfRepository: boolean): string {
  const base = slugify(repoName, 60);
  return firstOfRepository ? base : `${base}-${slug}`;
}

/**
 * git's ref-name rules (git-check-ref-format) for a branch name, plus: never starts with `-`
 * so it can never become an option, and never `HEAD` or a full `refs/…` name, which git would
 * resolve to something other than the branch `refs/heads/<name>` (SEC-3).
 */
export function isValidBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 250) return false;
  if (name === "HEAD" || name.startsWith("refs/")) return false;
  if (name.startsWith("-") || name.startsWith("/") || name.endsWith("/") || name.endsWith(".")) return false;
  if (name === "@" || name.includes("..") || name.includes("@{") || name.includes("//")) return false;
  // eslint-disable-next-line no-control-regex -- git forbids control characters in ref names
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  for (const part of name.split("/")) {
    if (part.startsWith(".") || part.endsWith(".lock") || part.length === 0) return false;
  }
  return true;
}

export function assertBranchName(name: string, field: string): void {
  if (!isValidBranchName(name)) {
    throw new AppError("invalid_branch_name", `${field} ${JSON.stringify(name)} is not a valid branch name`, { field });
  }
}

export const DEFAULT_BRANCH_TEMPLATE = "grove/{title}-{suffix}";

/** Renders a branch template with `{title}`, `{taskId}`, `{suffix}` and validates the result. */
export function renderBranchName(template: string, vars: { title: string; taskId: string; suffix: string }): string {
  const out = template.replaceAll("{title}", slugify(vars.title, 40)).replaceAll("{taskId}", vars.taskId).replaceAll("{suffix}", vars.suffix);
  assertBranchName(out, "branchTemplate");
  return out;
}
