import { spawn, type ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, tempDir, type TestRepo } from "../fixture/git.js";
import { runGrove } from "./run-cli.js";

const LAUNCHER = fileURLToPath(new URL("../../bin/grove.mjs", import.meta.url));
const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Grove Test",
  GIT_AUTHOR_EMAIL: "test@grove.invalid",
  GIT_COMMITTER_NAME: "Grove Test",
  GIT_COMMITTER_EMAIL: "test@grove.invalid",
};

/** `grove serve` as a real process on a free port; resolves with its URL once it listens. */
function serve(home: string): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_IDENTITY, GROVE_HOME: home, GROVE_PORT: "0", GROVE_HOST: "127.0.0.1", GROVE_LOG_LEVEL: "warn" };
  for (const k of ["GROVE_DATABASE_URL", "GROVE_AUTH_TOKEN", "GROVE_RUNNER_ID"]) delete env[k];
  const child = spawn(process.execPath, [LAUNCHER, "serve"], { env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]!, exited });
    });
    void exited.then((code) => reject(new Error(`grove serve exited with ${code}: ${err}`)));
  });
}

// The CLI against the real server (UX-3, UX-4): the walkthrough of the README, scripted agent included.
describe("grove CLI against grove serve (UX-3)", () => {
  let repo: TestRepo;
  let home: string;
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    repo = await makeRepo({ name: "demo" });
    home = await tempDir("grove-cli-home-");
    server = await serve(home);
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
    await repo?.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  const grove = async (args: string[], cwd?: string) => {
    const r = await runGrove([...args, "--server", server.url], cwd ? { cwd } : {});
    if (r.code !== 0) throw new Error(`grove ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
    return r;
  };

  it("UX-3 repo add, task create, task start with the scripted agent, session show, task diff", async () => {
    // A relative path, resolved against the caller's cwd (not the server's).
    const added = JSON.parse((await grove(["repo", "add", basename(repo.path), "--json"], dirname(repo.path))).stdout) as {
      id: string;
      path: string;
      name: string;
    };
    expect(added.path).toBe(repo.path);

    const created = JSON.parse((await grove(["task", "create", "--title", "Say hello", "--repo", `${added.name}@main`, "--json"])).stdout) as { id: string };
    expect((await grove(["task", "ls"])).stdout).toMatch(new RegExp(`^${created.id}\\s+(To do|In progress|Review)\\s+Say hello$`, "m"));

    const prompt = "say Hello from the scripted agent\nwrite hello.txt Hello, Grove\ncommit Add hello.txt\nwrite notes.md draft";
    const started = await grove(["task", "start", created.id, "--agent", "scripted", "--prompt", prompt, "--wait", "--json"]);
    expect(started.stderr).toContain("materializing workspace…");
    const session = JSON.parse(started.stdout) as { id: string; state: string };
    expect(session.state).toBe("waiting_for_input");

    const shown = (await grove(["session", "show", session.id])).stdout;
    expect(shown).toMatch(new RegExp(`^session ${session.id} {2}task ${created.id} "Say hello" {2}agent scripted {2}updated `));
    expect(shown).toContain("state: Waiting for you");
    expect(shown).toContain("last error: none");
    expect(shown).not.toContain("waiting_for_input");
    expect(shown).toMatch(/^agent: Hello from the scripted agent$/m);

    const changes = JSON.parse((await grove(["task", "diff", created.id, "--json"])).stdout) as {
      repositories: { ahead: number; files: { path: string; status: string }[] }[];
    };
    expect(changes.repositories[0]?.ahead).toBe(1);
    expect(changes.repositories[0]?.files.map((f) => [f.path, f.status])).toEqual(
      expect.arrayContaining([
        ["hello.txt", "added"],
        ["notes.md", "untracked"],
      ]),
    );
    const patch = (await grove(["task", "diff", created.id, "--path", "notes.md"])).stdout;
    expect(patch).toContain("+draft");
    // A patch printed for a terminal ends its last line (the shell's prompt starts on its own line).
    expect(patch.endsWith("\n")).toBe(true);
  });

  it("UX-4 grove serve exits 0 on SIGTERM", async () => {
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});
