import { rm } from "node:fs/promises";
import { freshDatabase } from "../fixture/db.js";
import { apiClient, spawnServer, startTestServer, tempHome, type ChildServer, type TestServer } from "../fixture/server.js";

import type { Cleanups } from "../fixture/cleanups.js";

export type { Cleanups };

/** One cluster secret for the runners of a test (forwarding between them needs it). */
export const TEST_CLUSTER_SECRET = "test-cluster-secret-0123456789";

/** A fresh PostgreSQL database shared by the runners of one test. */
export async function sharedDatabase(cleanups: Cleanups): Promise<{ databaseUrl: string; home: string }> {
  const db = await freshDatabase("postgres");
  cleanups.push(async () => {
    await db.drop();
    await rm(db.home, { recursive: true, force: true });
  });
  return { databaseUrl: db.databaseUrl!, home: db.home };
}

/** An in-process runner on the shared database, with its own GROVE_HOME. */
export async function inProcessRunner(cleanups: Cleanups, databaseUrl: string, id: string, env: Record<string, string> = {}): Promise<TestServer> {
  const home = await tempHome();
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const s = await startTestServer("postgres", { home, databaseUrl }, { GROVE_RUNNER_ID: id, GROVE_CLUSTER_SECRET: TEST_CLUSTER_SECRET, ...env });
  cleanups.push(() => s.stop());
  return s;
}

/** `grove serve` as a child process on the shared database (a runner that can be killed -9). */
export async function childRunner(
  cleanups: Cleanups,
  databaseUrl: string,
  id: string,
  env: Record<string, string> = {},
): Promise<ChildServer & { home: string; api: ReturnType<typeof apiClient> }> {
  const home = await tempHome();
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const c = await spawnServer(
    { GROVE_HOME: home, GROVE_DATABASE_URL: databaseUrl, GROVE_RUNNER_ID: id, GROVE_CLUSTER_SECRET: TEST_CLUSTER_SECRET, GROVE_LOG_LEVEL: "warn", ...env },
    { startTimeoutMs: 120_000 },
  );
  cleanups.push(async () => {
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
    await c.exited;
  });
  return { ...c, home, api: apiClient(c.url) };
}

/** Kills the process groups of agents a killed runner left behind (they outlive it by design). */
export function killGroups(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
