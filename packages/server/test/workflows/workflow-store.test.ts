import { describe, expect, it } from "vitest";
import { DATABASES, openTestStore } from "../fixture/db.js";
import { defaultWorkflow } from "../../src/domain/workflow.js";
import type { WorkflowRunRecord } from "../../src/domain/workflow-run.js";
import { pendingRun } from "./helpers.js";

const def = defaultWorkflow().definition;
const at = "2026-12-01T00:00:00.000Z";

function run(id: string, idemKey: string): WorkflowRunRecord {
  return pendingRun({ id, idemKey, entryId: "wfe_1", step: "review", action: { action: "move", to: "done" } });
}

// The compare-and-sets a second process could race, straight against each database.
describe.each(DATABASES)("WF-1 WF-2 workflow store (%s)", (kind) => {
  it("WF-1 a version is written once: two writers that read the same version, one wins", async () => {
    const { store, cleanup } = await openTestStore(kind);
    try {
      const w = { name: "w", repositoryId: null, source: "steps: []", definition: def, updatedAt: at };
      expect((await store.workflows.put(w, 0))?.version).toBe(1);
      expect(await store.workflows.put(w, 0)).toBeUndefined();
      const [a, b] = await Promise.all([store.workflows.put(w, 1), store.workflows.put(w, 1)]);
      expect([a?.version, b?.version].sort()).toEqual([2, undefined]);
      expect((await store.workflows.get("w"))?.version).toBe(2);
    } finally {
      await cleanup();
    }
  });

  it("WF-2 a run's key is inserted once, claimed once, and an entry's seq recorded once", async () => {
    const { store, cleanup } = await openTestStore(kind);
    try {
      expect(await store.workflows.enqueue(run("wfr_1", "k"))).toBeDefined();
      expect(await store.workflows.enqueue(run("wfr_2", "k"))).toBeUndefined();
      const claims = await Promise.all([store.workflows.claim("wfr_1", "r1", at), store.workflows.claim("wfr_1", "r2", at)]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const entry = { id: "wfe_1", taskId: "tsk_1", seq: 1, step: "review", workflow: "w", version: 1, createdAt: at };
      expect(await store.workflows.addEntry(entry)).toBe(true);
      expect(await store.workflows.addEntry({ ...entry, id: "wfe_2" })).toBe(false);
    } finally {
      await cleanup();
    }
  });
});
