/**
 * What a tool call's message keeps of its ACP update for the page: the content blocks (text,
 * diffs, terminal ids) and raw output, each capped so one huge file cannot bloat a message row.
 */
const TEXT_CAP = 64 * 1024;

function cap(s: unknown): unknown {
  return typeof s === "string" && s.length > TEXT_CAP ? `${s.slice(0, TEXT_CAP)}\n… (truncated)` : s;
}

/** `{content?, rawOutput?}` of a tool_call or tool_call_update, ready to merge into `data`. */
export function toolDetails(raw: unknown): { content?: unknown[]; rawOutput?: unknown } {
  const u = (raw ?? {}) as { content?: unknown; rawOutput?: unknown };
  const out: { content?: unknown[]; rawOutput?: unknown } = {};
  if (Array.isArray(u.content) && u.content.length > 0) {
    out.content = u.content.slice(0, 20).map((c) => {
      const b = c as { type?: string; path?: string; oldText?: unknown; newText?: unknown; content?: { type?: string; text?: unknown } };
      if (b.type === "diff") return { type: "diff", path: b.path, oldText: cap(b.oldText ?? null), newText: cap(b.newText) };
      if (b.type === "content" && b.content?.type === "text") return { type: "content", content: { type: "text", text: cap(b.content.text) } };
      return b;
    });
  }
  if (u.rawOutput !== undefined) {
    const s = JSON.stringify(u.rawOutput);
    out.rawOutput = s && s.length > TEXT_CAP ? cap(s) : u.rawOutput;
  }
  return out;
}
