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
    sparseCheckout: JSON.parse(r.sparse_checkout) as string[],
    setupScript: r.setup_script,
    apiUrl: r.api_url ?? null,
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
        sparse_checkout: JSON.stringify(r.sparseCheckout ?? []),
        setup_script: r.setupScript,
        api_url: r.apiUrl ?? null,
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

/** The checkout settings a person may change after registration (WT-9). */
export interface RepositorySettingsPatch {
  defaultBranch?: string;
  pullBeforeWorktree?: boolean;
  branchTemplate?: string;
  copyFiles?: string[];
  sparseCheckout?: string[];
  setupScript?: string | null;
}

/** Applies a settings patch; answers the updated record, or undefined when there is no such repository. */
export async function updateRepositorySettings(
  { db, dialect }: Ctx,
  id: string,
  patch: RepositorySettingsPatch,
  now: string,
): Promise<RepositoryRecord | undefined> {
  const res = await db
    .updateTable("repositories")
    .set({
      ...(patch.defaultBranch !== undefined && { default_branch: patch.defaultBranch }),
      ...(patch.pullBeforeWorktree !== undefined && { pull_before_worktree: toDbBool(dialect, patch.pullBeforeWorktree) }),
      ...(patch.branchTemplate !== undefined && { branch_template: patch.branchTemplate }),
      ...(patch.copyFiles !== undefined && { copy_files: JSON.stringify(patch.copyFiles) }),
      ...(patch.sparseCheckout !== undefined && { sparse_checkout: JSON.stringify(patch.sparseCheckout) }),
      ...(patch.setupScript !== undefined && { setup_script: patch.setupScript }),
      updated_at: now,
    })
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return undefined;
  return getRepository(db, id);
}
