import type { Selectable } from "kysely";
import type { RepositoryRecord } from "../domain/records.js";
import { AppError } from "../domain/errors.js";
import { fromDbBool, toDbBool, type Ctx, type Db, type RepositoriesTable } from "./schema.js";
import { isUniqueViolation } from "./transaction.js";

function toRecord(r: Selectable<RepositoriesTable>): RepositoryRecord {
  return {
    id: r.id,
    name: r.name,
    path: r.path,
    url: r.url,
    provider: r.provider,
    defaultBranch: r.default_branch,
    pullBeforeWorktree: fromDbBool(r.pull_before_worktree),
    credentialPolicy: r.credential_policy as RepositoryRecord["credentialPolicy"],
    hasCredential: fromDbBool(r.has_credential),
    branchTemplate: r.branch_template,
    copyFiles: JSON.parse(r.copy_files) as string[],
    setupScript: r.setup_script,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a repository; a taken name or path → `repository_exists`. */
export async function insertRepository({ db, dialect }: Ctx, r: RepositoryRecord): Promise<void> {
  try {
    await db
      .insertInto("repositories")
      .values({
        id: r.id,
        name: r.name,
        path: r.path,
        url: r.url,
        provider: r.provider,
        default_branch: r.defaultBranch,
        pull_before_worktree: toDbBool(dialect, r.pullBeforeWorktree),
        credential_policy: r.credentialPolicy,
        has_credential: toDbBool(dialect, r.hasCredential),
        branch_template: r.branchTemplate,
        copy_files: JSON.stringify(r.copyFiles),
        setup_script: r.setupScript,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
      })
      .execute();
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new AppError("repository_exists", `a repository named ${r.name} or at ${r.path} is already registered`, { name: r.name, path: r.path });
    }
    throw e;
  }
}

export async function getRepository(db: Db, id: string): Promise<RepositoryRecord | undefined> {
  const row = await db.selectFrom("repositories").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toRecord(row);
}

export async function findRepositoryByName(db: Db, name: string): Promise<RepositoryRecord | undefined> {
  const row = await db.selectFrom("repositories").selectAll().where("name", "=", name).executeTakeFirst();
  return row && toRecord(row);
}

export async function listRepositories(db: Db): Promise<RepositoryRecord[]> {
  const rows = await db.selectFrom("repositories").selectAll().orderBy("created_at").orderBy("id").execute();
  return rows.map(toRecord);
}
