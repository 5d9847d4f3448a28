import { rm } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import type { Deps } from "../context.js";
import { getRepositoryOr404 } from "./repositories.js";
import { repositoryOnThisRunner } from "../refresh/repository-on-runner.js";

/**
 * `DELETE /repositories/:id`: unregisters a repository no task refers to (the store
 * refuses with `repository_in_use` otherwise, archived tasks included). A local checkout is the
 * person's own and is never touched; the clone Grove made for a remote repository (under
 * `$GROVE_HOME/clones/`) is removed after the row, so a failure there leaves an orphan
 * directory, never a row pointing at nothing.
 */
export async function removeRepository(deps: Pick<Deps, "store" | "log" | "home" | "remote">, id: string): Promise<void> {
  // This runner's own clone (other runners' clones stay on their disks).
  const repo = repositoryOnThisRunner(deps, await getRepositoryOr404(deps, id));
  await deps.store.deleteRepository(id);
  const clones = resolve(deps.home, "clones");
  const inside = relative(clones, resolve(repo.path));
  const ownClone = repo.url !== null && inside !== "" && !inside.startsWith("..") && !inside.startsWith(sep);
  if (!ownClone) return;
  await rm(repo.path, { recursive: true, force: true }).catch((err: unknown) =>
    deps.log.warn({ err, repositoryId: id, path: repo.path }, "repository removed; its clone directory could not be deleted"),
  );
}
