import { describe, expect, it } from "vitest";
import { runModel } from "./operation-model.js";

/**
 * The randomized operation model (seeded, reproducible: a failure names its seed; rerun
 * one with GROVE_MODEL_SEEDS=<seed> GROVE_MODEL_STEPS=<n>). 3 seeds × 60 steps on SQLite and one
 * on PostgreSQL, 0 losses. Split over two files (this one and operation-model-more.test.ts) so
 * the runs use both cores. Seed 202 draws every operation kind, kill -9 included.
 */
const seeds = (process.env.GROVE_MODEL_SEEDS ?? "101,202").split(",").map((s) => Number.parseInt(s, 10));
const steps = Number.parseInt(process.env.GROVE_MODEL_STEPS ?? "", 10) || 60;

describe("operation model on SQLite (WT-5, LC-5, LC-8, SES-6, ENV-5)", () => {
  for (const seed of seeds) {
    it(`model: seed ${seed} × ${steps} steps on SQLite — every owned file in its worktree on its branch, doctor clean`, async () => {
      const ops = await runModel("sqlite", seed, steps);
      expect(ops).toHaveLength(steps);
    }, 900_000);
  }
});
