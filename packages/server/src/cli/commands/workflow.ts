import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import type { Command } from "commander";
import type { Workflow } from "@grove/protocol";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable, shortTime } from "../output.js";

/** `grove workflow ls|show <name>|apply <file.yaml>|export [name]` (WF-1): workflows as YAML; errors name the line. */
export function registerWorkflowCommands(program: Command): void {
  const wf = program.command("workflow").description("workflows: the board's steps with their automations, as YAML");
  withCommonOptions(wf.command("ls").description("list the workflows (the built-in default first)")).action(async (_opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const list = await client.call("listWorkflows");
    out.result(list, () => renderWorkflows(list));
  });
  withCommonOptions(wf.command("show <name>").description("print a workflow's YAML")).action(async (name: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const w = await client.call("getWorkflow", { params: { name } });
    out.result(w, () => w.source.replace(/\n$/, "").split("\n"));
  });
  withCommonOptions(
    wf
      .command("apply <file>")
      .description("store a workflow from a YAML file (a new version); its name is --name or the file's name")
      .option("--name <name>", "the workflow's name (default: the file name without .yaml)")
      .option("--if-version <n>", "only if the stored version is this one (0: it must not exist yet)"),
  ).action(async (file: string, opts: { name?: string; ifVersion?: string }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    let source: string;
    try {
      source = await readFile(file, "utf8");
    } catch (e) {
      throw new CliError("file_not_found", `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    const name = opts.name ?? basename(file, extname(file));
    const w = await client.call("putWorkflow", { params: { name }, query: { ifVersion: opts.ifVersion }, body: { source } });
    out.result(w, () => [`applied: ${w.name} version ${w.version}`]);
  });
  withCommonOptions(wf.command("export [name]").description("print one workflow's YAML, or every stored one as a multi-document YAML")).action(
    async (name: string | undefined, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const list =
        name === undefined ? (await client.call("listWorkflows")).filter((w) => !w.builtIn) : [await client.call("getWorkflow", { params: { name } })];
      out.result(list, () =>
        list.flatMap((w, i) => [...(i > 0 ? ["---"] : []), `# workflow: ${w.name} (version ${w.version})`, ...w.source.replace(/\n$/, "").split("\n")]),
      );
    },
  );
}

/** One line per workflow: name, scope, version, state, steps with automation. */
export function renderWorkflows(list: readonly Workflow[]): string[] {
  const rows = list.map((w) => [
    w.name,
    w.repositoryId ?? "global",
    String(w.version),
    w.builtIn ? "built-in" : w.stopped ? "stopped" : "active",
    w.steps
      .filter((s) => s.onEnter.length > 0 || Object.keys(s.on).length > 0)
      .map((s) => s.id)
      .join(",") || "-",
    // The built-in default was never written: it has no time of its own to show.
    w.builtIn ? "-" : shortTime(w.updatedAt),
  ]);
  return formatTable(rows, ["NAME", "SCOPE", "VERSION", "STATE", "AUTOMATED", "UPDATED"]);
}
