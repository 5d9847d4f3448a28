/**
 * A single file's unified patch (`git diff` output for one path) as rows: hunk headers and
 * lines with their old and new line numbers. Split view pairs removed and added runs.
 */
export interface DiffRow {
  kind: "hunk" | "add" | "del" | "ctx" | "note";
  text: string;
  oldNo?: number;
  newNo?: number;
}

export function parsePatch(patch: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  for (const line of patch.replace(/\n$/, "").split("\n")) {
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
    if (h) {
      oldNo = Number(h[1]);
      newNo = Number(h[2]);
      inHunk = true;
      rows.push({ kind: "hunk", text: line });
      continue;
    }
    if (!inHunk) continue; // file headers (diff --git, index, ---/+++) are shown by the file header
    if (line.startsWith("+")) rows.push({ kind: "add", text: line.slice(1), newNo: newNo++ });
    else if (line.startsWith("-")) rows.push({ kind: "del", text: line.slice(1), oldNo: oldNo++ });
    else if (line.startsWith("\\")) rows.push({ kind: "note", text: line });
    else rows.push({ kind: "ctx", text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
  }
  return rows;
}

export interface SplitRow {
  kind: "hunk" | "note" | "pair";
  text?: string;
  left?: DiffRow;
  right?: DiffRow;
}

/** Side-by-side rows: context on both sides, a run of removals beside the following additions. */
export function splitRows(rows: DiffRow[]): SplitRow[] {
  const out: SplitRow[] = [];
  for (let i = 0; i < rows.length; ) {
    const r = rows[i]!;
    if (r.kind === "hunk" || r.kind === "note") {
      out.push({ kind: r.kind, text: r.text });
      i++;
    } else if (r.kind === "ctx") {
      out.push({ kind: "pair", left: r, right: r });
      i++;
    } else {
      const dels: DiffRow[] = [];
      const adds: DiffRow[] = [];
      while (rows[i]?.kind === "del") dels.push(rows[i++]!);
      while (rows[i]?.kind === "add") adds.push(rows[i++]!);
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) out.push({ kind: "pair", left: dels[k], right: adds[k] });
    }
  }
  return out;
}
