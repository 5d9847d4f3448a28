import type { Command } from "commander";
import { CliError, isCliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";

/** `grove doctor`: the server's read-only audit of database rows against worktrees on disk. */
export function registerDoctorCommand(program: Command): void {
  withCommonOptions(program.command("doctor").description("read-only audit: database rows vs git worktrees on disk")).action(
    async (_opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const report = await client.get<unknown>("/doctor").catch((e: unknown) => {
        if (isCliError(e) && e.status === 404) {
          throw new CliError("not_supported", "this server has no doctor endpoint (GET /api/v1/doctor answered 404); upgrade the server");
        }
        throw e;
      });
      out.result(report, () => describeReport(report));
    },
  );
}

/**
 * The report's shape belongs to the server (docs/); people get a generic rendering: scalar
 * fields as `key: value`, arrays as one line per entry.
 */
export function describeReport(report: unknown, indent = ""): string[] {
  if (report === null || typeof report !== "object") return [`${indent}${String(report)}`];
  const lines: string[] = [];
  for (const [key, value] of Object.entries(report as Record<string, unknown>)) {
    if (Array.isArray(value)) {
      lines.push(`${indent}${key}: ${value.length === 0 ? "none" : ""}`.trimEnd());
      for (const item of value) lines.push(`${indent}  - ${item !== null && typeof item === "object" ? inline(item) : String(item)}`);
    } else if (value !== null && typeof value === "object") {
      lines.push(`${indent}${key}:`, ...describeReport(value, indent + "  "));
    } else {
      lines.push(`${indent}${key}: ${String(value)}`);
    }
  }
  return lines;
}

function inline(item: object): string {
  return Object.entries(item)
    .map(([k, v]) => `${k}=${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(" ");
}
