import { describe, expect, it } from "vitest";
import { runModel } from "./operation-model.js";

/** Operation model, second half: the third SQLite seed and the PostgreSQL run (see operation-model.test.ts). */
const sqliteSeed = Number.parseInt(process.env.GROVE_MODEL_SQLITE_SEED_3 ?? "", 10) || 303;
const pgSeed = Number.parseInt(process.env.GROVE_MODEL_PG_SEED ?? "", 10) || 404;
const steps = Number.parseInt(process.env.GROVE_MODEL_STEPS ?? "", 10) || 60;

describe("operation model, continued (WT-5, LC-5, LC-8, SES-6, ENV-5)", () => {
  it(`model: seed ${sqliteSeed} × ${steps} steps on SQLite — every owned file in its worktree on its branch, doctor clean`, async () => {
    const ops = await runModel("sqlite", sqliteSeed, steps);
    expect(ops).toHaveLength(steps);
  }, 900_000);
  it(`model: seed ${pgSeed} × ${steps} steps on PostgreSQL — every owned file in its worktree on its branch, doctor clean`, async () => {
    const ops = await runModel("postgres", pgSeed, steps);
    expect(ops).toHaveLength(steps);
  }, 900_000);
});
