import type { Repository } from "@grove/protocol";
import { CliError } from "./client.js";

/** One `--repo <repoId|name>[@baseBranch]` argument, resolved against the server's repositories. */
export interface ResolvedRepoRef {
  repositoryId: string;
  baseBranch?: string;
}

/**
 * Resolves `<repoId|name>[@baseBranch]`. Both repository names and branch names may contain `@`,
 * so instead of guessing where to split, the whole text is tried first (no base branch), then
 * every `@` from left to right; the first left part that is a known id (preferred) or name wins.
 */
export function resolveRepoRef(ref: string, repos: readonly Pick<Repository, "id" | "name">[]): ResolvedRepoRef {
  const find = (key: string) => repos.find((r) => r.id === key) ?? repos.find((r) => r.name === key);
  const whole = find(ref);
  if (whole) return { repositoryId: whole.id };
  for (let at = ref.indexOf("@"); at !== -1; at = ref.indexOf("@", at + 1)) {
    const repo = find(ref.slice(0, at));
    const branch = ref.slice(at + 1);
    if (repo) {
      if (branch === "") throw new CliError("invalid_arguments", `--repo ${ref}: empty base branch after "@"`);
      return { repositoryId: repo.id, baseBranch: branch };
    }
  }
  throw new CliError("not_found", `no repository with id or name "${ref}" (see \`grove repo ls\`)`, { details: { repo: ref } });
}

/**
 * Tells a remote URL (`https://…`, `ssh://…`, scp-like `git@host:owner/name.git`) from a local
 * path. A path with a colon before its first slash would be ambiguous; git treats it as scp-like
 * too, so we do the same (write `./a:b` for such a directory).
 */
export function isRemoteUrl(arg: string): boolean {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(arg)) return true;
  const colon = arg.indexOf(":");
  const slash = arg.indexOf("/");
  return colon > 0 && (slash === -1 || colon < slash) && !arg.startsWith(".");
}
