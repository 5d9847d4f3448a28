/**
 * Renders a unified diff (`git diff` output) line by line, coloured by kind: added, removed,
 * hunk header, file header, context. Each line is its own block so colours span the width.
 */
import type { FileDiff } from "@grove/protocol";
import { h } from "../dom.js";

function kind(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith("\\")) return "note";
  return "ctx";
}

export function renderDiff(d: FileDiff): HTMLElement {
  if (d.binary) return h("p", { class: "diff-note" }, `${d.path} is a binary file; no text diff.`);
  if (!d.patch.trim()) return h("p", { class: "diff-note" }, `No textual changes in ${d.path}.`);
  const lines = d.patch.replace(/\n$/, "").split("\n");
  return h(
    "div",
    { class: "diff-wrap" },
    h(
      "pre",
      { class: "diff", "aria-label": `Diff of ${d.path}` },
      h("code", null, lines.map((l) => h("span", { class: `line ${kind(l)}` }, l || " "))),
    ),
    d.truncated ? h("p", { class: "diff-note" }, "The diff was truncated by the server.") : null,
  );
}
