import type { UsageQuery, UsageReport, UsageRow } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { Deps } from "../context.js";

/** A usage page cursor: the last key of the previous page, with the grouping it belongs to. */
function encodeKeyCursor(groupBy: string, key: string): string {
  return Buffer.from(JSON.stringify(["u", groupBy, key]), "utf8").toString("base64url");
}

function decodeKeyCursor(groupBy: string, raw: string): string {
  const bad = () => new AppError("invalid_request", "cursor: not a cursor this server issued for this groupBy", { field: "cursor" });
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 3 || v[0] !== "u" || v[1] !== groupBy || typeof v[2] !== "string") throw bad();
  return v[2];
}

/**
 * USE-1 `GET /usage`: the ledger of every runner summed per task, repository, agent profile,
 * runner or UTC day, keys ascending, paged by key; `taskId` narrows it to the task and its
 * subtasks. Task and repository rows carry their title or name as `label`.
 */
export async function usageReport(deps: Pick<Deps, "store">, q: UsageQuery, subtree: (taskId: string) => Promise<string[]>): Promise<UsageReport> {
  if (q.from && q.to && q.from > q.to) throw new AppError("invalid_request", "from is after to", { field: "from" });
  let taskIds: string[] | undefined;
  if (q.taskId) {
    if (!(await deps.store.getTaskAnyState(q.taskId))) throw new AppError("not_found", `task ${q.taskId} not found`, { id: q.taskId });
    taskIds = await subtree(q.taskId);
  }
  const after = q.cursor === undefined ? undefined : decodeKeyCursor(q.groupBy, q.cursor);
  const page = await deps.store.usage.rollup({ groupBy: q.groupBy, from: q.from, to: q.to, taskIds, after, limit: q.limit });
  const rows = await Promise.all(page.rows.map((r) => labelled(deps, q.groupBy, r)));
  const last = page.rows[page.rows.length - 1];
  return { rows, nextCursor: page.more && last ? encodeKeyCursor(q.groupBy, last.key) : null };
}

async function labelled(deps: Pick<Deps, "store">, groupBy: UsageQuery["groupBy"], r: UsageRow): Promise<UsageRow> {
  if (groupBy === "task") {
    const t = await deps.store.getTaskAnyState(r.key);
    return t ? { ...r, label: t.title } : r;
  }
  if (groupBy === "repository" && r.key) {
    const repo = await deps.store.getRepository(r.key);
    return repo ? { ...r, label: repo.name } : r;
  }
  return r;
}
