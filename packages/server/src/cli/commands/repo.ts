import { resolve } from "node:path";
import type { Command } from "commander";
import type { CreateRepositoryBody, Repository } from "@grove/protocol";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable } from "../output.js";
import { isRemoteUrl, resolveRepoRef } from "../repo-ref.js";
import { CliError } from "../client.js";

interface RepoAddOptions {
  name?: string;
  provider?: string;
  defaultBranch?: string;
  pullBeforeWorktree: boolean;
  tokenEnv?: string;
  credentialPolicy?: "managed" | "executor";
  sparse?: string;
  quiet?: boolean;
}

/** `grove repo add|ls|show|rm`. */
export function registerRepoCommands(program: Command): void {
  const repo = program.command("repo").description("register, inspect and remove repositories");

  withCommonOptions(
    repo
      .command("add <pathOrUrl>")
      .description("register a local repository (path) or a remote one (https://, ssh://, git@host:owner/name.git)")
      .option("--name <name>", "display name (default: derived from the path or URL)")
      .option("--provider <provider>", "github | gitlab | azure-devops | <plugin> (for a remote URL on a host that does not name it)")
      .option("--default-branch <branch>", "base branch for new tasks (default: the repository's HEAD branch)")
      .option("--no-pull-before-worktree", "do not refresh the base branch before creating a worktree")
      .option("--token-env <VAR>", "read the provider token from this environment variable (never pass a token in argv)")
      .option("--credential-policy <policy>", "managed | executor (default: managed when a token is given)")
      .option("--sparse <dirs>", "check out only these directories (comma-separated) in new worktrees: git's sparse checkout, cone mode")
      .option("-q, --quiet", "print only the new repository's id"),
  ).action(async (target: string, opts: RepoAddOptions, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const remote = isRemoteUrl(target);
    // The server resolves nothing against its own cwd: a relative path means the caller's cwd.
    const body: CreateRepositoryBody = remote ? { url: target } : { path: resolve(process.cwd(), target) };
    if (opts.name !== undefined) body.name = opts.name;
    if (opts.provider !== undefined) body.provider = opts.provider;
    if (opts.defaultBranch !== undefined) body.defaultBranch = opts.defaultBranch;
    if (cmd.getOptionValueSource("pullBeforeWorktree") === "cli") body.pullBeforeWorktree = opts.pullBeforeWorktree;
    if (opts.tokenEnv !== undefined) {
      const token = process.env[opts.tokenEnv];
      if (!token) throw new CliError("invalid_arguments", `environment variable ${opts.tokenEnv} is empty or unset`);
      body.credential = { token };
    }
    if (opts.credentialPolicy !== undefined) body.credentialPolicy = opts.credentialPolicy;
    if (opts.sparse !== undefined)
      body.sparseCheckout = opts.sparse
        .split(",")
        .map((d) => d.trim().replace(/\/+$/, ""))
        .filter(Boolean);
    // RR-1: the clone's progress, from the event stream, while the request runs. Its first line
    // comes from the server's first progress event, i.e. after the request was validated.
    const stop = remote
      ? await (await import("../clone-progress.js")).followCloneProgress(client.base, process.env.GROVE_AUTH_TOKEN, out, `cloning ${target}…`)
      : () => undefined;
    let created: Repository;
    try {
      created = await client.call("addRepository", { body });
    } finally {
      stop();
    }
    out.result(created, () => (opts.quiet ? [created.id] : [`added repository ${created.name} (${created.id}) ${created.url ?? created.path}`]));
  });

  withCommonOptions(repo.command("ls").description("list registered repositories")).action(async (_opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const repos = await client.call("listRepositories");
    out.result(repos, () =>
      repos.length === 0
        ? ["no repositories (add one with `grove repo add <path|url>`)"]
        : formatTable(
            repos.map((r) => [r.id, r.name, r.provider, r.defaultBranch, r.url ?? r.path]),
            ["ID", "NAME", "PROVIDER", "DEFAULT BRANCH", "LOCATION"],
          ),
    );
  });

  withCommonOptions(repo.command("show <repoIdOrName>").description("show one repository and its settings")).action(
    async (ref: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const r = await client.call("getRepository", { params: { id: resolveRepoRef(ref, await client.call("listRepositories")).repositoryId } });
      out.result(r, () => describeRepository(r));
    },
  );

  withCommonOptions(
    repo
      .command("rm <repoIdOrName>")
      .description(
        "unregister a repository no task (archived ones included) refers to; a local checkout is never touched, Grove's own clone of a remote one is removed",
      ),
  ).action(async (ref: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const { repositoryId } = resolveRepoRef(ref, await client.call("listRepositories"));
    const body = await client.call("removeRepository", { params: { id: repositoryId } });
    out.result(body ?? { ok: true, repositoryId, action: "rm" }, () => [`removed repository ${ref} (${repositoryId})`]);
  });
}

/** Human lines for `repo show`: one `key: value` per setting. */
export function describeRepository(r: Repository): string[] {
  const rows: [string, unknown][] = [
    ["id", r.id],
    ["name", r.name],
    ["provider", r.provider],
    ["location", r.url ?? r.path],
    ...(r.url ? ([["clone", r.path]] as [string, unknown][]) : []),
    ["default branch", r.defaultBranch],
    ["branch template", r.branchTemplate],
    ["pull before worktree", r.pullBeforeWorktree],
    ["credential", r.hasCredential ? `stored (${r.credentialPolicy})` : r.credentialPolicy],
    ["copy files", r.copyFiles?.join(", ") || "-"],
    ["sparse checkout", r.sparseCheckout?.join(", ") || "-"],
    ["setup script", r.setupScript ?? "-"],
  ];
  return rows.map(([k, v]) => `${k}: ${String(v)}`);
}
