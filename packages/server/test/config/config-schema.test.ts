import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../../src/app.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { CONFIG_TABLE_END, CONFIG_TABLE_START, configurationTable, refuseUnknownVariables, VARIABLES, type VariableSpec } from "../../src/config-schema.js";
import { loadRunnerConfig } from "../../src/runner-config.js";
import { startTestServer } from "../fixture/server.js";

const SRC = resolve(import.meta.dirname, "../../src");
const README = resolve(import.meta.dirname, "../../../../README.md");
const SPECS = VARIABLES as Record<string, VariableSpec>;
/** A value each schema refuses: `x1` unless that is well-formed for the variable (a command name is). */
const MALFORMED: Record<string, string> = { GROVE_BWRAP: "bin/bwrap" };

/** Both start-up loaders, as startServer runs them. */
function loadAll(env: NodeJS.ProcessEnv): void {
  loadConfig(env);
  loadRunnerConfig(env);
}

async function withHome<T>(fn: (home: string) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), "grove-cfg-"));
  try {
    return await fn(home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe("CFG: one configuration schema for every GROVE_* variable", () => {
  it("CFG-1: every variable with a schema refuses a malformed value by name, and never echoes a secret", async () => {
    await withHome(async (home) => {
      const typed = Object.entries(SPECS).filter(([, v]) => v.schema);
      expect(typed.length).toBeGreaterThanOrEqual(15);
      for (const [name, spec] of typed) {
        const bad = MALFORMED[name] ?? "x1";
        expect(() => loadAll({ GROVE_HOME: home, [name]: bad }), name).toThrow(ConfigError);
        expect(() => loadAll({ GROVE_HOME: home, [name]: bad }), name).toThrow(new RegExp(`^${name} `));
        if (spec.secret)
          expect(() => loadAll({ GROVE_HOME: home, [name]: bad })).toThrow(expect.objectContaining({ message: expect.not.stringContaining(bad) }));
      }
      expect(() => loadAll({ GROVE_HOME: home, GROVE_DATABASE_URL: "mysql://u:hunter2@db/grove" })).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining("hunter2") }),
      );
      expect(() => loadAll({ GROVE_HOME: home, GROVE_PORT: "70000" })).toThrow(/GROVE_PORT must be an integer from 0 to 65535/);
      expect(() => loadAll({ GROVE_HOME: home, GROVE_PR_REFRESH_MS: "-1" })).toThrow(/GROVE_PR_REFRESH_MS must be an integer ≥ 0/);
      expect(() => loadAll({ GROVE_HOME: home, GROVE_REVIEW_DONE_ON_MERGE: "no" })).toThrow(/GROVE_REVIEW_DONE_ON_MERGE must be true, false, 1 or 0/);
      expect(() => loadAll({ GROVE_HOME: home, GROVE_LOG_LEVEL: "verbose" })).toThrow(/GROVE_LOG_LEVEL must be fatal, error/);
    });
  });

  it("CFG-1: the values are typed, with their defaults when unset or empty", async () => {
    await withHome(async (home) => {
      const dflt = loadConfig({ GROVE_HOME: home, GROVE_PR_REFRESH_MS: "", GROVE_MAX_WS_CLIENTS: "" });
      expect(dflt.tuning).toEqual({
        prRefreshMs: 60_000,
        reviewDoneOnMerge: true,
        setupScriptTimeoutMs: 600_000,
        watchMaxDirs: 4000,
        worktreePool: { size: 0, maxBytes: 4096 * 1024 * 1024 },
      });
      expect(dflt.wsLimits).toEqual({ maxClients: 64, maxBufferedBytes: 1024 * 1024 });
      expect([dflt.port, dflt.gitMaxConcurrency, dflt.refreshTimeoutMs, dflt.cloneTimeoutMs, dflt.logLevel]).toEqual([7420, 8, 120_000, 1_800_000, "info"]);
      expect(dflt.fault).toBeUndefined();
      const set = loadConfig({
        GROVE_HOME: home,
        GROVE_PR_REFRESH_MS: "0",
        GROVE_REVIEW_DONE_ON_MERGE: "false",
        GROVE_SETUP_SCRIPT_TIMEOUT_MS: "1500",
        GROVE_WATCH_MAX_DIRS: " 12 ",
        GROVE_GIT_MAX_CONCURRENCY: "3",
        GROVE_MAX_WS_CLIENTS: "5",
        GROVE_EDITOR: "code",
        GROVE_LOG_LEVEL: "debug",
        GROVE_WORKTREE_POOL_SIZE: "3",
        GROVE_WORKTREE_POOL_MAX_MB: "10",
        GROVE_FAULT: "cleanup.after_claim:hang",
      });
      expect(set.fault).toBe("cleanup.after_claim:hang");
      expect(set.tuning).toEqual({
        prRefreshMs: 0,
        reviewDoneOnMerge: false,
        setupScriptTimeoutMs: 1500,
        watchMaxDirs: 12,
        worktreePool: { size: 3, maxBytes: 10 * 1024 * 1024 },
      });
      expect(() => loadConfig({ GROVE_HOME: home, GROVE_WORKTREE_POOL_SIZE: "65" })).toThrow(/GROVE_WORKTREE_POOL_SIZE must be an integer from 0 to 64/);
      expect([set.gitMaxConcurrency, set.wsLimits.maxClients, set.editor, set.logLevel]).toEqual([3, 5, "code", "debug"]);
    });
  });

  it("CFG-1 SBX-3: GROVE_BWRAP is read once, one default (`bwrap` in PATH); a relative path stops the start-up naming it, before the store opens", async () => {
    await withHome(async (home) => {
      expect(loadConfig({ GROVE_HOME: home }).bwrap).toBe("bwrap");
      expect(loadConfig({ GROVE_HOME: home, GROVE_BWRAP: "" }).bwrap).toBe("bwrap");
      expect(loadConfig({ GROVE_HOME: home, GROVE_BWRAP: "/opt/bw/bin/bwrap" }).bwrap).toBe("/opt/bw/bin/bwrap");
      expect(loadConfig({ GROVE_HOME: home, GROVE_BWRAP: "bwrap-0.11" }).bwrap).toBe("bwrap-0.11");
      // Missing is not malformed: SBX-3.1 refuses real agents on a running server instead.
      expect(loadConfig({ GROVE_HOME: home, GROVE_BWRAP: "/nonexistent/bwrap" }).bwrap).toBe("/nonexistent/bwrap");
      const start = startServer({ env: { GROVE_HOME: home, GROVE_PORT: "0", GROVE_BWRAP: "./bin/bwrap" }, quiet: true });
      await expect(start).rejects.toBeInstanceOf(ConfigError);
      await expect(start).rejects.toThrow(/^GROVE_BWRAP must be an absolute path or a command name looked up in PATH, got "\.\/bin\/bwrap"$/);
      expect(existsSync(join(home, "grove.db"))).toBe(false);
    });
  });

  it("CFG-2: an unknown GROVE_* name stops the start-up naming it (and the name it is nearest to), before the store opens", async () => {
    await withHome(async (home) => {
      const start = startServer({ env: { GROVE_HOME: home, GROVE_PORT: "0", GROVE_PR_REFRESH_MSS: "0" }, quiet: true });
      await expect(start).rejects.toBeInstanceOf(ConfigError);
      await expect(start).rejects.toThrow(/^GROVE_PR_REFRESH_MSS is not a Grove variable \(did you mean GROVE_PR_REFRESH_MS\?\)/);
      expect(existsSync(join(home, "grove.db"))).toBe(false);
      // The home lock is released: a corrected start-up succeeds.
      const server = await startServer({ env: { GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn" }, quiet: true });
      await server.close();
    });
  });

  it("CFG-2: harness families and the names an agent profile passes on are known; anything else is not", () => {
    expect(() =>
      refuseUnknownVariables({
        GROVE_TEST_PG_URL: "x",
        GROVE_BENCH_ONLY: "x",
        GROVE_MODEL_SEEDS: "1",
        GROVE_CI_NODE24: "1",
        GROVE_INTEROP_CACHE: "/c",
        PATH: "/bin",
      }),
    ).not.toThrow();
    expect(() => refuseUnknownVariables({ GROVE_EXTRA_SETTING: "x" }, ["GITHUB_TOKEN", "GROVE_EXTRA_SETTING"])).not.toThrow();
    expect(() => refuseUnknownVariables({ GROVE_EXTRA_SETTING: "x" })).toThrow(/^GROVE_EXTRA_SETTING is not a Grove variable:/);
    expect(() => refuseUnknownVariables({ GROVE_PROT: "1" })).toThrow(/did you mean GROVE_PORT\?/);
  });

  it("CFG-3: README's configuration table is the one generated from the schema", () => {
    const text = readFileSync(README, "utf8");
    const start = text.indexOf(CONFIG_TABLE_START);
    const end = text.indexOf(CONFIG_TABLE_END);
    expect(start, "README.md has the table's start marker").toBeGreaterThan(0);
    expect(text.slice(start + CONFIG_TABLE_START.length, end).trim(), "regenerate: node --import tsx packages/server/scripts/gen-config-table.ts").toBe(
      configurationTable(),
    );
    // Every server or CLI variable has its row; every GROVE_* name README's table names is declared.
    const rows = [...configurationTable().matchAll(/^\| `(GROVE_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(
      Object.entries(SPECS)
        .filter(([, v]) => v.readBy !== "child" && v.readBy !== "harness")
        .map(([k]) => k),
    );
  });

  it("CFG-4: no GROVE_* variable is read outside the config module but for the documented exceptions", () => {
    // Exceptions (docs/specs/configuration.md): the CLI reads its own variables; `grove serve`
    // sets the server's listen variables; the scripted agent is a program Grove starts.
    const allowed = (file: string, name: string): boolean => {
      if (["config.ts", "config-schema.ts", "runner-config.ts"].includes(file)) return true;
      if (file === "cli/commands/serve.ts") return name === "GROVE_HOST" || name === "GROVE_PORT";
      if (file.startsWith("cli/")) return SPECS[name]?.readBy === "cli" || SPECS[name]?.readBy === "server+cli";
      if (file.startsWith("agents/scripted-agent")) return SPECS[name]?.readBy === "child";
      return false;
    };
    const READ = /\benv(?:\.|\?\.)(GROVE_[A-Z0-9_]+)|\benv\[["'`](GROVE_[A-Z0-9_]+)["'`]\]/g;
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) =>
        statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith(".ts") && !n.endsWith(".test.ts") ? [join(dir, n)] : [],
      );
    const reads: string[] = [];
    const stray: string[] = [];
    for (const path of files(SRC)) {
      const file = relative(SRC, path);
      for (const m of readFileSync(path, "utf8").matchAll(READ)) {
        const name = (m[1] ?? m[2])!;
        reads.push(`${file}: ${name}`);
        if (!allowed(file, name)) stray.push(`${file}: ${name}`);
        if (!(name in SPECS)) stray.push(`${file}: ${name} (not declared in config-schema.ts)`);
      }
    }
    // The pattern finds reads (the CLI's own), so an empty stray list means something.
    expect(reads).toEqual(expect.arrayContaining(["cli/client.ts: GROVE_PORT", "cli/token.ts: GROVE_AUTH_TOKEN_FILE"]));
    expect(stray).toEqual([]);
  });

  it("CFG-5: GROVE_PR_REFRESH_MS=0 given to an in-process server turns its pull-request refresh off (the server reads the env it is given, not process.env)", async () => {
    expect(process.env.GROVE_PR_REFRESH_MS).toBeUndefined();
    const off = await startTestServer("sqlite", undefined, { GROVE_PR_REFRESH_MS: "0" });
    try {
      expect(off.server.orchestrator.review.poller.active).toBe(false);
    } finally {
      await off.close();
    }
    const on = await startTestServer("sqlite");
    try {
      expect(on.server.orchestrator.review.poller.active).toBe(true);
    } finally {
      await on.close();
    }
  });
});
