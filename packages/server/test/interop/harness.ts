import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type Server } from "node:net";
import { expect } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitFor, type TestServer } from "../fixture/server.js";
import { linkBridge } from "./bridges.js";

/**
 * What every interop suite shares (AG-3): the refusing proxy, the agent's environment, the
 * session launch, and the reads of the transcript, permissions and git the acceptance compares.
 */
export type Msg = { role: string; text: string; data?: { toolCallId?: string; status?: string } };
export type Api = TestServer["api"];
export type Ask = { requestId: string; title: string; toolKind?: string; options: { optionId: string; kind: string }[] };

/** A loopback listener standing in for any proxy: records the first line of every attempt, then refuses it. */
export class RefusingProxy {
  readonly attempts: string[] = [];
  private server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((s) => {
      s.once("data", (d) => this.attempts.push(d.toString("utf8").split("\r\n")[0] ?? "?"));
      setTimeout(() => s.destroy(), 50);
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}

/** Every way an agent may pick up a proxy, pointed at `proxyUrl`; loopback goes direct. */
export function proxyEnv(proxyUrl: string): Record<string, string> {
  return {
    HTTPS_PROXY: proxyUrl,
    HTTP_PROXY: proxyUrl,
    https_proxy: proxyUrl,
    http_proxy: proxyUrl,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
}

/**
 * The one place that decides an interop agent's network: the refusing proxy for everything that
 * is not loopback, plus each agent's own switches for traffic it would otherwise try (each a
 * variable its built-in profile inherits, so a person can set the same). opencode: no models.dev
 * catalogue fetch, and its embedded npm offline (its background install of `@opencode-ai/plugin`
 * into its config dir contacts the npm registry otherwise; nothing else switches it off). Claude
 * Code: no telemetry or update checks. Gemini CLI has no variable for its usage statistics (its
 * settings file says so); codex-acp tries nothing.
 */
export function agentNetworkEnv(agent: Agent, proxyUrl: string): Record<string, string> {
  const own: Record<Agent, Record<string, string>> = {
    claude: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    gemini: {},
    codex: {},
    opencode: { OPENCODE_DISABLE_MODELS_FETCH: "1", npm_config_offline: "true" },
  };
  return { ...proxyEnv(proxyUrl), ...own[agent] };
}

export type Agent = "claude" | "codex" | "gemini" | "opencode";

/**
 * Sets variables in this process's environment (an in-process server's agents inherit it, pool:
 * forks); returns the restore.
 */
export function setEnv(env: Record<string, string | undefined>): () => void {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

export async function messages(api: Api, sid: string): Promise<Msg[]> {
  return (await api("GET", `/sessions/${sid}/messages`)).body as Msg[];
}

/** Waits for one pending permission request of the session; returns it. */
export async function pendingAsk(api: Api, sid: string): Promise<Ask> {
  return waitFor(async () => ((await api("GET", `/sessions/${sid}/permissions`)).body as Ask[])[0], "a permission request", 60_000);
}

export function gitStatus(dir: string): string {
  return execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: dir, encoding: "utf8" });
}

/** A process with exactly this command line runs with its cwd in `dir` (the agent's shell tool is running). */
export function runningIn(dir: string, cmdline: string): boolean {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (
        readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ") === cmdline &&
        realpathSync(readlinkSync(`/proc/${pid}/cwd`)) === realpathSync(dir)
      )
        return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

/** No tool row of the transcript is still open. */
export function allToolsClosed(msgs: Msg[]): boolean {
  return msgs.filter((m) => m.role === "tool").every((m) => !["pending", "in_progress"].includes(m.data?.status ?? "pending"));
}

/** One in-process server per test with the cached bridge installed, and a session of `agent` on a fresh task. */
/**
 * SBX-1/SBX-2: how an interop agent runs. Confined (the default for every agent) with the fake
 * model API's loopback address on its allow-list and the test's agent HOME as its own; or
 * `"off"` for an agent that does not run confined here.
 */
export type InteropSandbox = "off" | { modelUrl(): string; home(): string };

/** `host:port` of a URL, as an allow-list entry. */
export function hostPortOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === "https:" ? 443 : 80)}`;
}

/** The built-in profile extended in agents.json with a suite's sandbox (the rest as shipped). */
export function writeInteropProfile(home: string, agent: Agent, sandbox: InteropSandbox): void {
  const entry =
    sandbox === "off"
      ? { name: agent, sandbox: "off" }
      : { name: agent, env: { HOME: sandbox.home() }, sandbox: { network: [hostPortOf(sandbox.modelUrl())], writable: [sandbox.home()] } };
  writeFileSync(join(home, "agents.json"), JSON.stringify({ agents: [entry] }));
}

export class InteropServer {
  private srv: TestServer | undefined;

  constructor(
    private readonly agent: Agent,
    private readonly sandbox: InteropSandbox,
    /** The database the server runs on (the usage roll-ups are dialect-specific SQL). */
    private readonly database: "sqlite" | "postgres" = "sqlite",
  ) {}

  private writeProfile(home: string): void {
    writeInteropProfile(home, this.agent, this.sandbox);
  }

  async launch(prompt?: string) {
    const db = await freshDatabase(this.database);
    linkBridge(db.home, this.agent);
    this.writeProfile(db.home);
    this.srv = await startTestServer(this.database, db);
    const { task, repo, repository } = await repoAndTask(this.srv);
    const s = await this.srv.api("POST", `/tasks/${task.id}/sessions`, { agent: this.agent, ...(prompt ? { prompt } : {}) });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    expect(s.body.lastError).toBeNull();
    const ws = (await this.srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    return {
      sid: s.body.id as string,
      taskId: task.id as string,
      worktree: ws.workspacePath as string,
      repoPath: repo.path as string,
      repositoryId: repository.id as string,
      api: this.srv.api,
      url: this.srv.url,
      home: db.home,
    };
  }

  /** A server with the bridge installed and no session (the caller starts one). */
  async bare(): Promise<TestServer> {
    const db = await freshDatabase(this.database);
    linkBridge(db.home, this.agent);
    this.writeProfile(db.home);
    this.srv = await startTestServer(this.database, db);
    return this.srv;
  }

  async close(): Promise<void> {
    await this.srv?.close();
    this.srv = undefined;
  }
}
