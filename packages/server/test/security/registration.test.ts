import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, makeRepo, tempDir } from "../fixture/git.js";
import { waitForSession, serverPerTest } from "../fixture/server.js";

describe.each(ONE_DATABASE)("SEC-3 what can be registered and created (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("SEC-3 a task's worktree, a linked worktree, a repository nested in one, and anything in GROVE_HOME cannot be registered", async () => {
    const srv = await perTest.start();
    const repo = await makeRepo();
    perTest.track(repo);
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const t = await srv.api("POST", "/tasks", { title: "Owner", repositories: [{ repositoryId: r.body.id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const wt = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.workspacePath as string;
    // A worktree the person made by hand, outside GROVE_HOME, and a repository nested inside it.
    const outside = await tempDir("grove-linked-");
    const linked = join(outside, "linked");
    repo.git("worktree", "add", "-q", "-b", "by-hand", linked);
    mkdirSync(join(linked, "nested"));
    gitSync(join(linked, "nested"), "init", "-q", "-b", "main");
    gitSync(join(linked, "nested"), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x");
    const inHome = join(srv.home, "clones", "own");
    mkdirSync(inHome, { recursive: true });
    gitSync(inHome, "init", "-q", "-b", "main");
    gitSync(inHome, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x");
    const cases: [string, string][] = [
      [wt, "path_is_worktree"],
      [linked, "path_is_worktree"],
      [join(linked, "nested"), "path_is_worktree"],
      [inHome, "path_inside_grove_home"],
    ];
    for (const [path, code] of cases) {
      const res = await srv.api("POST", "/repositories", { path, name: `n${cases.findIndex((c) => c[0] === path)}` });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe(code);
    }
    expect((await srv.api("GET", "/repositories")).body).toHaveLength(1);
    repo.git("worktree", "remove", "--force", linked);
  });

  it("SEC-3 checkoutBranch/baseBranch HEAD, -x, a..b and refs/… are refused at task creation with 400 invalid_branch_name", async () => {
    const srv = await perTest.start();
    const repo = await makeRepo();
    perTest.track(repo);
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    for (const field of ["checkoutBranch", "baseBranch"]) {
      for (const bad of ["HEAD", "-x", "a..b", "refs/heads/main", "refs/tags/v1"]) {
        const res = await srv.api("POST", "/tasks", { title: "B", repositories: [{ repositoryId: r.body.id, [field]: bad }] });
        expect(res.status, `${field}=${bad}`).toBe(400);
        expect(res.body.error.code, `${field}=${bad}`).toBe("invalid_branch_name");
      }
    }
    expect((await srv.api("GET", "/tasks")).body).toEqual([]);
  });
});

describe("SEC-1 start-up refuses a short token beyond loopback", () => {
  it("SEC-1 GROVE_AUTH_TOKEN shorter than 16 characters is refused for a non-loopback bind; 16 is accepted; loopback takes any", async () => {
    const home = await tempDir("grove-cfg-");
    for (const token of [" ", "x", "fifteen-chars-x"]) {
      expect(() => loadConfig({ GROVE_HOME: home, GROVE_HOST: "0.0.0.0", GROVE_AUTH_TOKEN: token }), JSON.stringify(token)).toThrow(ConfigError);
    }
    expect(loadConfig({ GROVE_HOME: home, GROVE_HOST: "0.0.0.0", GROVE_AUTH_TOKEN: "sixteen-chars-ok" }).authToken).toBe("sixteen-chars-ok");
    expect(loadConfig({ GROVE_HOME: home, GROVE_HOST: "127.0.0.1", GROVE_AUTH_TOKEN: "x" }).authToken).toBe("x");
  });
});

describe("SEC-1/WEB-50 start-up refuses GROVE_ALLOWED_HOSTS beyond loopback without a token", () => {
  it("SEC-1 WEB-50 a tunnel's Host name needs GROVE_AUTH_TOKEN of at least 16 characters; loopback names do not", async () => {
    const home = await tempDir("grove-cfg-");
    for (const token of [undefined, "x", "fifteen-chars-x"]) {
      const env = { GROVE_HOME: home, GROVE_ALLOWED_HOSTS: "localhost:9000, grove.example.net", ...(token ? { GROVE_AUTH_TOKEN: token } : {}) };
      expect(() => loadConfig(env), JSON.stringify(token)).toThrow(/GROVE_ALLOWED_HOSTS lets requests in from grove\.example\.net .*GROVE_AUTH_TOKEN/);
    }
    expect(loadConfig({ GROVE_HOME: home, GROVE_ALLOWED_HOSTS: "grove.example.net", GROVE_AUTH_TOKEN: "sixteen-chars-ok" }).allowedHosts).toEqual([
      "grove.example.net",
    ]);
    expect(loadConfig({ GROVE_HOME: home, GROVE_ALLOWED_HOSTS: "localhost:9000, 127.0.0.2, [::1]:8080" }).allowedHosts).toHaveLength(3);
  });
});
