import { rm } from "node:fs/promises";
import { afterEach } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { apiClient, spawnServer, type ChildServer, type DbKind } from "../fixture/server.js";

export type Api = ReturnType<typeof apiClient>;

/** One `grove serve` child process of a crash test and its API. */
export interface CrashServer {
  server: ChildServer;
  api: Api;
}

/** The home and database a crash test's servers share, one after the other. */
export interface CrashWorld {
  home: string;
  /** Starts `grove serve` on the shared home and database; `fault` e.g. `workflow.after_claim:exit`. */
  start(fault?: string): Promise<CrashServer>;
}

/**
 * WF-2 crash tests (kill -9 in the middle of an action): registers the `afterEach` that runs
 * the cleanups (newest first) and returns them, plus `world()`, which makes a fresh home and
 * database whose servers are killed (SIGKILL) and removed by those cleanups. `env` is added to
 * every server's environment (e.g. `GROVE_PR_REFRESH_MS: "0"`).
 */
export function crashTest(kind: DbKind, env: Record<string, string> = {}): { cleanups: (() => Promise<unknown>)[]; world(): Promise<CrashWorld> } {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });
  return {
    cleanups,
    async world() {
      const db = await freshDatabase(kind);
      cleanups.push(async () => {
        await db.drop();
        await rm(db.home, { recursive: true, force: true });
      });
      return {
        home: db.home,
        async start(fault?: string) {
          const server = await spawnServer({ GROVE_HOME: db.home, GROVE_DATABASE_URL: db.databaseUrl, GROVE_FAULT: fault, ...env });
          cleanups.push(async () => {
            server.child.kill("SIGKILL");
            await server.exited;
          });
          return { server, api: apiClient(server.url) };
        },
      };
    },
  };
}
