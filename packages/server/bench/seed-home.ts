import type { Kysely } from "kysely";
import type { DB } from "../src/store/schema.js";
import { newId } from "../src/domain/ids.js";
import type { TaskRecord } from "../src/domain/records.js";
import { openStore } from "../src/store/open.js";

/**
 * A GROVE_HOME (SQLite) with `tasks` tasks on one registered repository and `live` sessions a
 * crashed server left `running` (what start-up recovery works on). Direct store writes: seeding
 * 10,000 tasks through the API would take minutes on a busy machine.
 */
export async function seedHome(home: string, opts: { tasks: number; live: number; repoPath: string }): Promise<{ repositoryId: string }> {
  const store = await openStore({ home });
  const repositoryId = newId("repo");
  const t0 = Date.parse("2026-01-01T00:00:00.000Z");
  try {
    await store.transaction(async () => {
      const at = new Date(t0).toISOString();
      await store.insertRepository({
        id: repositoryId,
        name: "seeded",
        path: opts.repoPath,
        url: null,
        provider: "local",
        defaultBranch: "main",
        pullBeforeWorktree: false,
        credentialPolicy: "executor",
        hasCredential: false,
        branchTemplate: "grove/{title}-{suffix}",
        copyFiles: [],
        setupScript: null,
        createdAt: at,
        updatedAt: at,
      });
      for (let i = 0; i < opts.tasks; i++) {
        const id = newId("task");
        const now = new Date(t0 + i * 1000).toISOString();
        const t: TaskRecord = {
          id,
          title: `Seeded task ${i}: make the widget ${i % 7 === 0 ? "faster" : "nicer"}`,
          description: `Description of task ${i}, long enough to look like one a person wrote.`,
          state: (["todo", "in_progress", "review", "done"] as const)[i % 4] ?? "todo",
          dirName: `seeded-${i}-${id}`,
          archivedAt: i % 5 === 0 ? now : null,
          createdAt: now,
          updatedAt: now,
          repositories: [{ repositoryId, baseBranch: "main", checkoutBranch: null, prNumber: null, position: 0 }],
        };
        await store.insertTask(t);
        if (i < opts.live)
          await store.insertSession({
            id: newId("ses"),
            taskId: id,
            agent: "scripted",
            state: "running",
            taskEnvironmentId: null,
            acpSessionId: null,
            lastError: null,
            createdAt: now,
            updatedAt: now,
            sandbox: "confined",
          });
      }
    });
  } finally {
    await store.close();
  }
  return { repositoryId };
}

/** Puts the seeded live sessions back to `running`, as a crash would leave them. */
export async function crashAgain(home: string): Promise<void> {
  const store = await openStore({ home });
  try {
    await store.transaction(async (trx) => {
      await (trx as Kysely<DB>).updateTable("sessions").set({ state: "running" }).where("state", "=", "waiting_for_input").execute();
    });
  } finally {
    await store.close();
  }
}
