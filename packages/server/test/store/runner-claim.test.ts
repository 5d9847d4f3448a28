import { afterEach, describe, expect, it } from "vitest";
import { claimRunner, type RunnerClaim } from "../../src/store/runner-claim.js";
import { freshDatabase } from "../fixture/db.js";

/**
 * LIVE-1 on PostgreSQL: the runner-id claim is an advisory lock, which belongs to one database.
 * Two installations sharing a PostgreSQL server (their own databases) may use the same runner
 * id; a refused start names the holder in its own database, never the other installation's.
 */
describe("LIVE-1 runner id claims on PostgreSQL", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function database(): Promise<string> {
    const db = await freshDatabase("postgres");
    cleanups.push(() => db.drop());
    return db.databaseUrl!;
  }

  async function claim(url: string, pid: number): Promise<RunnerClaim> {
    const r = await claimRunner(url, "runner_shared", { pid, host: "host-a" });
    if (!("claim" in r)) throw new Error(`not claimed: ${JSON.stringify(r.heldBy)}`);
    cleanups.push(() => r.claim.release());
    return r.claim;
  }

  it("LIVE-1 the same id is held once per database, and a refused claim names the holder in its own database", async () => {
    const other = await database();
    const mine = await database();
    // The other installation's holder connected first: an unfiltered lookup would find it.
    await claim(other, 1111);
    await claim(mine, 2222);
    const refused = await claimRunner(mine, "runner_shared", { pid: 3333, host: "host-b" });
    expect(refused).toEqual({ heldBy: { pid: 2222, host: "host-a", url: null } });
  });
});
