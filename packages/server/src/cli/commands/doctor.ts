import type { Command } from "commander";
import type { DoctorReport } from "@grove/protocol";
import { CliError, isCliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";

/** `grove doctor`: the server's read-only audit of database rows against worktrees on disk. */
export function registerDoctorCommand(program: Command): void {
  withCommonOptions(program.command("doctor").description("read-only audit: database rows vs git worktrees on disk")).action(
    async (_opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const report = await client.call("auditWorktrees").catch((e: unknown) => {
        if (isCliError(e) && e.status === 404) {
          throw new CliError("not_supported", "this server has no doctor endpoint (GET /api/v1/doctor answered 404); upgrade the server");
        }
        throw e;
      });
      out.result(report, () => (isDoctorReport(report) ? renderReport(report) : describeReport(report)));
      // Exit 1 when something is wrong, after the report itself was printed (stdout).
      if (isDoctorReport(report) && !report.ok) {
        throw new CliError("doctor_findings", `${report.findings.length} problem(s) found; nothing was changed`);
      }
    },
  );
}

function isDoctorReport(r: unknown): r is DoctorReport {
  return typeof r === "object" && r !== null && typeof (r as DoctorReport).ok === "boolean" && Array.isArray((r as DoctorReport).findings);
}

/** Human rendering of the server's audit (docs/specs/lifecycle.md, LC-D). */
export function renderReport(r: DoctorReport): string[] {
  const c = r.checked;
  const head = `checked ${c.environmentRows} worktree row(s), ${c.repositories} repositor${c.repositories === 1 ? "y" : "ies"}, ${c.taskDirectories} task director${c.taskDirectories === 1 ? "y" : "ies"}`;
  const skipped = r.skipped?.length
    ? [
        `skipped ${r.skipped.length} environment(s) of other runners: ${[...new Set(r.skipped.map((s) => s.runnerId))].join(", ")} (run grove doctor against each)`,
      ]
    : [];
  if (r.ok) return [head, ...skipped, "ok: database rows, git worktrees and task directories agree"];
  return [head, ...skipped, ...r.findings.map((f) => `${f.kind.padEnd(12)} ${f.path}  ${f.message}`)];
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
