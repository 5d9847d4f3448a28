import type { Command } from "commander";
import type { Runner } from "@grove/protocol";
import { contextOf, withCommonOptions } from "../context.js";
import { shortTime } from "../output.js";

/** `grove runners`: the runners registered in the shared database (`GET /runners`). */
export function registerRunnersCommand(program: Command): void {
  withCommonOptions(program.command("runners").description("list the runners sharing this server's database, with load and state")).action(
    async (_opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const runners = await client.call("listRunners");
      out.result(runners, () => renderRunners(runners));
    },
  );
}

/** One line per runner: id, state, load (live/max), labels, URL, host, last heartbeat. */
export function renderRunners(runners: readonly Runner[]): string[] {
  if (runners.length === 0) return ["no runners registered"];
  const rows = runners.map((r) => [r.id, r.state, `${r.liveAgents}/${r.maxAgents ?? "-"}`, r.labels.join(",") || "-", r.url, r.host, shortTime(r.lastSeenAt)]);
  const head = ["ID", "STATE", "AGENTS", "LABELS", "URL", "HOST", "LAST SEEN"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  return [head, ...rows].map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join("  "));
}
