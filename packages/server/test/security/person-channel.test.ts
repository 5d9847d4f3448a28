import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { tempDir } from "../fixture/git.js";
import { repoAndTask } from "../fixture/scenario.js";
import { apiClient, spawnServer, startTestServer, waitFor, waitForSession, type ChildServer, type TestServer } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";

/** What any process on this machine can send: no token, no cookie, just the right Host and JSON. */
function plainRequest(url: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/api/v1${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

async function askingServer(kind: "sqlite" | "postgres", env: Record<string, string> = {}): Promise<TestServer> {
  const db = await freshDatabase(kind);
  mkdirSync(db.home, { recursive: true });
  const { command, args } = scriptedAgentCommand();
  writeFileSync(
    join(db.home, "agents.json"),
    JSON.stringify({
      agents: [{ name: "careful", command, args, env: { GROVE_SCRIPTED_STATE_DIR: join(db.home, "agents", "careful") }, permissionPolicy: "ask" }],
    }),
  );
  return startTestServer(kind, db, env);
}

describe.each(ONE_DATABASE)("SBX-5 only the person answers (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("SBX-5 a plain process gets 403 person_required answering a permission or switching mode/model; the CLI (person token from GROVE_HOME) can", async () => {
    srv = await askingServer(kind);
    const token = readFileSync(join(srv.home, "person-token"), "utf8").trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(srv.home, "person-token")).mode & 0o777).toBe(0o600);
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "careful", prompt: "ask may I write?\nwrite allowed.txt yes" });
    const [ask] = await waitFor(async () => {
      const r = (await srv!.api("GET", `/sessions/${s.body.id}/permissions`)).body as { requestId: string; options: { optionId: string; kind: string }[] }[];
      return r.length > 0 ? r : undefined;
    }, "a pending permission request");
    const allow = ask!.options.find((o) => o.kind.startsWith("allow"))!.optionId;

    // Reading the pending request is open; answering it, or switching to an auto-approving mode, is not.
    const attempts = [
      await plainRequest(srv.url, "POST", `/sessions/${s.body.id}/permissions/${ask!.requestId}`, { optionId: allow }),
      await plainRequest(srv.url, "POST", `/sessions/${s.body.id}/mode`, { modeId: "auto" }),
      await plainRequest(srv.url, "POST", `/sessions/${s.body.id}/model`, { modelId: "scripted-large" }),
      // A wrong token, and the page's cookie without an origin (not a browser's own request).
      await plainRequest(srv.url, "POST", `/sessions/${s.body.id}/mode`, { modeId: "auto" }, { authorization: `Bearer ${"0".repeat(64)}` }),
      await plainRequest(srv.url, "POST", `/sessions/${s.body.id}/mode`, { modeId: "auto" }, { cookie: `grove_token=${"0".repeat(64)}`, origin: srv.url }),
    ];
    for (const r of attempts) {
      expect(r.status).toBe(403);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("person_required");
    }
    expect((await srv.api("GET", `/sessions/${s.body.id}`)).body.state).toBe("running");
    expect((await srv.api("GET", `/sessions/${s.body.id}/permissions`)).body).toHaveLength(1);

    // The CLI finds the person token in GROVE_HOME and answers.
    const answered = await runGrove(["session", "answer", s.body.id, ask!.requestId, "allow", "--server", srv.url], { env: { GROVE_HOME: srv.home } });
    expect(answered.stderr).toBe("");
    expect(answered.code).toBe(0);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const mode = await runGrove(["session", "mode", s.body.id, "auto", "--server", srv.url, "--json"], { env: { GROVE_HOME: srv.home } });
    expect(mode.code).toBe(0);
    expect(JSON.parse(mode.stdout).modes.currentModeId).toBe("auto");
    // Without the home (a process that cannot read it), the CLI is a plain process too.
    const otherHome = await tempDir("grove-other-home-");
    const blind = await runGrove(["session", "mode", s.body.id, "ask", "--server", srv.url], { env: { GROVE_HOME: otherHome } });
    await rm(otherHome, { recursive: true, force: true });
    expect(blind.code).toBe(1);
    expect(blind.stderr).toContain("person_required");
    // The page's document load carries the person cookie (HttpOnly, SameSite=Strict).
    const page = await fetch(`${srv.url}/`);
    expect(page.headers.get("set-cookie")).toBe(`grove_token=${token}; HttpOnly; SameSite=Strict; Path=/`);
    const asPage = await plainRequest(srv.url, "POST", `/sessions/${s.body.id}/mode`, { modeId: "ask" }, { cookie: `grove_token=${token}`, origin: srv.url });
    expect(asPage.status).toBe(200);
  });
});

describe("SBX-5 GROVE_AUTH_TOKEN never stays in the server's start-time environment", () => {
  let child: ChildServer | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    if (child && child.child.exitCode === null) {
      child.child.kill("SIGTERM");
      await child.exited;
    }
    child = undefined;
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it("SBX-5 GROVE_AUTH_TOKEN given in the environment: /proc/<pid>/environ no longer holds it, the API still takes it", async () => {
    const home = await tempDir("grove-home-");
    dirs.push(home);
    const token = "tok-" + "a1b2c3d4".repeat(4);
    child = await spawnServer({ GROVE_HOME: home, GROVE_AUTH_TOKEN: token, GROVE_CLUSTER_SECRET: "cluster-" + "s".repeat(20) });
    const environ = readFileSync(`/proc/${child.child.pid}/environ`, "utf8");
    expect(environ).not.toContain(token);
    expect(environ).not.toContain("s".repeat(20));
    expect((await apiClient(child.url)("GET", "/tasks")).status).toBe(401);
    expect((await apiClient(child.url, token)("GET", "/tasks")).status).toBe(200);
  });

  it("SBX-5 GROVE_AUTH_TOKEN_FILE: the token comes from a 0600 file; a file others can read is refused at start-up", async () => {
    const home = await tempDir("grove-home-");
    const secrets = await tempDir("grove-secrets-");
    dirs.push(home, secrets);
    const file = join(secrets, "token");
    const token = "file-" + "9f8e7d6c".repeat(4);
    writeFileSync(file, `${token}\n`, { mode: 0o644 });
    chmodSync(file, 0o644);
    const refused = await runGrove(["serve"], { env: { GROVE_HOME: home, GROVE_PORT: "0", GROVE_AUTH_TOKEN_FILE: file } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("chmod 600");
    chmodSync(file, 0o600);
    child = await spawnServer({ GROVE_HOME: home, GROVE_AUTH_TOKEN_FILE: file });
    expect(readFileSync(`/proc/${child.child.pid}/environ`, "utf8")).not.toContain(token);
    expect((await apiClient(child.url, token)("GET", "/tasks")).status).toBe(200);
    const cli = await runGrove(["task", "ls", "--server", child.url, "--json"], { env: { GROVE_AUTH_TOKEN_FILE: file } });
    expect(cli.code).toBe(0);
  });
});
