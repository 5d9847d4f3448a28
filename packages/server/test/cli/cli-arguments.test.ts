import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { runGrove } from "./run-cli.js";

// CLI-19 with the bundled CLI against a real server: a command's missing and invalid arguments
// are reported in one error, so the person fixes them in one go, and nothing is written.
describe("CLI-19 one error names every missing or invalid argument", () => {
  let srv: TestServer;
  let repo: TestRepo;
  let taskId: string;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);
  const comments = async () => ((await srv.api("GET", `/tasks/${taskId}/comments`)).body as { id: string }[]).length;

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    repo = await makeRepo({ name: "args", files: { "notes.md": "one\ntwo\n" } });
    expect((await grove("repo", "add", repo.path)).code).toBe(0);
    taskId = (await grove("task", "create", "--title", "Arguments", "--repo", "args", "--quiet")).stdout.trim();
    const started = await grove("task", "start", taskId, "--prompt", "say ready", "--wait", "--quiet");
    expect(started.code, started.stderr).toBe(0);
  });
  afterAll(async () => {
    await srv?.close();
    await repo?.cleanup();
  });

  it("CLI-19 task comment with nothing but the task names every missing option and the text at once", async () => {
    const r = await grove("task", "comment", taskId);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("error: invalid_arguments: missing --repo <repoIdOrName>, --path <path>, --line <n> and <text>\n");
    const bare = await grove("task", "comment");
    expect(bare.stderr).toBe("error: invalid_arguments: missing <taskId>, --repo <repoIdOrName>, --path <path>, --line <n> and <text>\n");
    expect(await comments()).toBe(0);
  });

  it("CLI-19 task comment reports a missing option and an invalid value together; --json lists them", async () => {
    const r = await grove("task", "comment", taskId, "looks off", "--repo", "args", "--line", "zero");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: invalid_arguments: missing --path <path>; --line must be a positive whole number, got "zero"\n');
    const json = await grove("task", "comment", taskId, "looks off", "--line", "-2", "--json");
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: "invalid_arguments",
        message: 'missing --repo <repoIdOrName> and --path <path>; --line must be a positive whole number, got "-2"',
        details: { missing: ["--repo <repoIdOrName>", "--path <path>"], invalid: ['--line must be a positive whole number, got "-2"'] },
      },
    });
    expect(await comments()).toBe(0);
  });

  it("CLI-19 task comment with everything given adds the comment", async () => {
    const r = await grove("task", "comment", taskId, "--repo", "args", "--path", "notes.md", "--line", "2", "say it twice");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^comment \S+ on notes\.md:2 \(new\)\n$/);
    expect(await comments()).toBe(1);
  });

  it("CLI-19 task create names both missing options, and a bad --pr with them; no task is created", async () => {
    const before = ((await srv.api("GET", "/tasks")).body as unknown[]).length;
    const r = await grove("task", "create", "--pr", "abc");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: invalid_arguments: missing --title <title> and --repo <repoIdOrName[@baseBranch]>; --pr must be a positive integer, got "abc"\n',
    );
    expect(((await srv.api("GET", "/tasks")).body as unknown[]).length).toBe(before);
  });
});
