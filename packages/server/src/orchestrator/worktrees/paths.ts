import { join } from "node:path";
import type { Deps } from "../context.js";
import type { TaskRecord } from "../../domain/records.js";

/** WT-1: `$GROVE_HOME/tasks/<taskDir>`. */
export function taskRoot(deps: Pick<Deps, "home">, task: Pick<TaskRecord, "dirName">): string {
  return join(deps.home, "tasks", task.dirName);
}

/** Raw ACP frames of one session (debugging aid, SES-5). */
export function acpLogFile(deps: Pick<Deps, "home">, sessionId: string): string {
  return join(deps.home, "logs", `${sessionId}.acp.jsonl`);
}

export const TASK_MARKER = ".grove-task.json";
