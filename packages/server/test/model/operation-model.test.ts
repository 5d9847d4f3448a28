import { describe, expect, it } from "vitest";
import { runModel } from "./operation-model.js";

/**
 * Issue 9: the randomized operation model (seeded, reproducible: a failure names its seed; rerun
 * one with GROVE_MODEL_SEEDS=<seed> GROVE_MODEL_STEPS=<n>). 3 seeds × 60 steps on SQLite and one
 * on PostgreSQL, 0 losses.
 */
const seeds = (process.env.GROVE_MODEL_SEEDS ?? "101,202,303").split(",").map((s) => Number.parseInt(s, 10));
const steps = Number.parseInt(process.env.GROVE_MODEL_STEPS ?? "", 10) || 60;
const pgSeed = Number.parseInt(process.env.GROVE_MODEL_PG_SEED ?? "", 10) || 404;

describe("issue 9 operation model (WT-5, LC-5, LC-8, SES-6, ENV-5)", () => {
  for (const seed of seeds) {
    it(`model: seed ${seed} × ${steps} steps on SQLite — every owned file in its worktree on its branch, doctor clean`, async () => {
      const ops = await runModel("sqlite", seed, steps);
      expect(ops).toHaveLength(steps);
    }, 600_000);
  }
  it(`model: seed ${pgSeed} × ${steps} steps on PostgreSQL — every owned file in its worktree on its branch, doctor clean`, async () => {
    const ops = await runModel("postgres", pgSeed, steps);
    expect(ops).toHaveLength(steps);
  }, 600_000);
});
