/** Parsers for the `-z` outputs behind CHG-1. NUL-separated, so any byte but NUL may be in a name. */

/** One path of `git status --porcelain=v2 -z`. */
export interface StatusEntry {
  kind: "changed" | "renamed" | "unmerged" | "untracked";
  path: string;
  origPath?: string;
  /** X and Y of XY: index vs HEAD, worktree vs index; "." = unchanged. */
  x: string;
  y: string;
}

/** Parsed `git status --porcelain=v2 -z --branch`. */
export interface StatusReport {
  /** Branch name, or null when detached. */
  branch: string | null;
  entries: StatusEntry[];
}

/** Splits `line` into `count` space-separated fields and the rest (the path, which may contain spaces). */
function fieldsAndRest(line: string, count: number): { fields: string[]; rest: string } {
  const fields: string[] = [];
  let pos = 0;
  for (let i = 0; i < count; i++) {
    const next = line.indexOf(" ", pos);
    if (next < 0) return { fields, rest: "" };
    fields.push(line.slice(pos, next));
    pos = next + 1;
  }
  return { fields, rest: line.slice(pos) };
}

/** Parses `git status --porcelain=v2 -z --branch` (entries `1`, `2`, `u`, `?`; headers `# branch.*`). */
export function parseStatusV2(out: string): StatusReport {
  const tokens = out.split("\0");
  const report: StatusReport = { branch: null, entries: [] };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === "") continue;
    if (t.startsWith("# branch.head ")) {
      const head = t.slice("# branch.head ".length);
      report.branch = head === "(detached)" ? null : head;
    } else if (t.startsWith("1 ")) {
      const { fields, rest } = fieldsAndRest(t, 8);
      report.entries.push({ kind: "changed", path: rest, x: fields[1]![0]!, y: fields[1]![1]! });
    } else if (t.startsWith("2 ")) {
      const { fields, rest } = fieldsAndRest(t, 9);
      // In -z mode the original path is the next NUL-separated token.
      report.entries.push({ kind: "renamed", path: rest, origPath: tokens[++i] ?? "", x: fields[1]![0]!, y: fields[1]![1]! });
    } else if (t.startsWith("u ")) {
      const { fields, rest } = fieldsAndRest(t, 10);
      report.entries.push({ kind: "unmerged", path: rest, x: fields[1]![0]!, y: fields[1]![1]! });
    } else if (t.startsWith("? ")) {
      report.entries.push({ kind: "untracked", path: t.slice(2), x: "?", y: "?" });
    }
  }
  return report;
}

/** One file of `git diff --raw --numstat -z <base>`. */
export interface DiffEntry {
  path: string;
  oldPath?: string;
  /** Raw status letter: A, C, D, M, R, T, U, X. */
  status: string;
  /** null for binary files (numstat `-`). */
  additions: number | null;
  deletions: number | null;
}

/**
 * Parses `git diff --raw --numstat -z`: first the raw records (`:modes shas STATUS\0path\0`, two
 * paths for R/C), then the numstat records (`add\tdel\tpath\0`, or `add\tdel\t\0old\0new\0` for a
 * rename). Numstat decides the file list (CHG-1 is defined against it); raw supplies the status.
 */
export function parseRawNumstat(out: string): DiffEntry[] {
  const tokens = out.split("\0");
  const statusByPath = new Map<string, string>();
  const entries: DiffEntry[] = [];
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    if (t === "") {
      i += 1;
      continue;
    }
    if (t.startsWith(":")) {
      const status = t.slice(t.lastIndexOf(" ") + 1);
      const twoPaths = status.startsWith("R") || status.startsWith("C");
      const path = twoPaths ? tokens[i + 2]! : tokens[i + 1]!;
      statusByPath.set(path, status[0]!);
      i += twoPaths ? 3 : 2;
      continue;
    }
    const [add = "", del = "", inlinePath = ""] = t.split("\t", 3);
    const tabAt = t.indexOf("\t", t.indexOf("\t") + 1);
    const path = tabAt >= 0 ? t.slice(tabAt + 1) : inlinePath;
    const entry: DiffEntry = {
      path,
      status: "M",
      additions: add === "-" ? null : Number(add),
      deletions: del === "-" ? null : Number(del),
    };
    if (path === "") {
      entry.oldPath = tokens[i + 1] ?? "";
      entry.path = tokens[i + 2] ?? "";
      i += 3;
    } else {
      i += 1;
    }
    entries.push(entry);
  }
  for (const e of entries) e.status = statusByPath.get(e.path) ?? (e.oldPath !== undefined ? "R" : "M");
  return entries;
}
