import { randomBytes } from "node:crypto";

/** Sortable-enough random ids with a type prefix (`task_…`, `ses_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString("base64url").replace(/[-_]/g, "x")}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
