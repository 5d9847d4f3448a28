import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { tempHome } from "../fixture/server.js";
import { killGroups, sharedDatabase, type Cleanups } from "./helpers.js";
import { isolatedRunner, sql } from "./isolated.js";

/**
 * ms between heartbeats; a runner is judged offline after 3 missed beats. One second: a loaded
 * 2-core machine stalls a runner's event loop past 600 ms (three 200 ms beats), and a request
 * through another runner then answers from the recorded rows as if the owner were offline.
 */
export const BEAT = "1000";
/** The failover tests measure how fast a dead runner is noticed: 3 × 200 ms. */
export const FAST_BEAT = "200";
/**
 * For tests about load and capacity, not liveness: a runner stays online through a 9 s stall. With BEAT, a
 * runner busy archiving a task on a loaded machine can miss 3 s of beats, and a placement made
 * then rightly leaves it out, which is not what such a test asks.
 */
export const SLOW_BEAT = "3000";

/**
 * Three runners on one PostgreSQL, each in its own mount namespace where the others' homes are
 * hidden (empty tmpfs). C has the label `gpu`. `beforeStart` may seed the (empty) homes, e.g. with a shared credential key.
 */
export async function threeRunners(
  cleanups: Cleanups,
  o: { trace?: boolean; env?: Record<string, string>; beforeStart?: (homes: { a: string; b: string; c: string }) => Promise<void> } = {},
) {
  const { databaseUrl, home: scratch } = await sharedDatabase(cleanups);
  // Agents a kill -9'd runner left behind (their groups outlive it by design).
  cleanups.push(async () => killGroups((await sql<{ pid: number }>(databaseUrl, "SELECT pid FROM agent_processes")).map((r) => Number(r.pid))));
  const secret = randomBytes(24).toString("hex");
  const homes = { a: await tempHome(), b: await tempHome(), c: await tempHome() };
  cleanups.push(() => Promise.all(Object.values(homes).map((h) => rm(h, { recursive: true, force: true }))));
  await o.beforeStart?.(homes);
  const common = { GROVE_RUNNER_HEARTBEAT_MS: BEAT, GROVE_CLUSTER_SECRET: secret, GROVE_RUNNER_MAX_AGENTS: "2", ...o.env };
  const start = (id: "a" | "b" | "c", env: Record<string, string> = {}, trace = false) =>
    isolatedRunner(cleanups, {
      id: `runner_${id}`,
      home: homes[id],
      hide: Object.entries(homes)
        .filter(([k]) => k !== id)
        .map(([, h]) => h),
      databaseUrl,
      env: { ...common, ...env },
      ...(trace ? { trace: `${scratch}/strace-${id}.log` } : {}),
    });
  const [a, b, c] = await Promise.all([start("a", {}, o.trace), start("b", {}, o.trace), start("c", { GROVE_RUNNER_LABELS: "gpu" })]);
  return { databaseUrl, secret, homes, a, b, c, restartC: () => start("c", { GROVE_RUNNER_LABELS: "gpu" }) };
}

export async function agentPids(databaseUrl: string, runnerId: string): Promise<number[]> {
  return (await sql<{ pid: number }>(databaseUrl, "SELECT pid FROM agent_processes WHERE runner_id = $1", [runnerId])).map((r) => Number(r.pid));
}
