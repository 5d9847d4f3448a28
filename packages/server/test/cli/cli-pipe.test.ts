import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubServer, type StubServer } from "./stub-server.js";
import { message, repository, session, task } from "./fixtures.js";

const LAUNCHER = fileURLToPath(new URL("../../bin/grove.mjs", import.meta.url));

/**
 * `grove … | head -1`: runs the bundled CLI with stdout into a reader that closes the pipe after
 * the first line, and resolves with the exit code and stderr.
 */
function pipeIntoHead(args: string[]): Promise<{ code: number | null; stderr: string; firstLine: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, GROVE_CLI_BUNDLE: "require" };
  delete env.GROVE_AUTH_TOKEN;
  const child = spawn(process.execPath, [LAUNCHER, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let seen = "";
  let firstLine = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.on("data", (d: Buffer) => {
    seen += d.toString();
    const nl = seen.indexOf("\n");
    if (nl !== -1 && firstLine === "") {
      firstLine = seen.slice(0, nl);
      child.stdout.destroy(); // the reader goes away: the writer's next write gets EPIPE
    }
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr, firstLine })));
}

// Outputs far larger than a pipe's buffer (64 KiB), so the CLI is still writing when the reader leaves.
const MANY = 4000;

describe("every read command survives a closed pipe", () => {
  let stub: StubServer;
  beforeAll(async () => {
    stub = await startStubServer();
    const repos = Array.from({ length: MANY }, (_, i) => repository(`repo_${i}`, `name-${i}`));
    const files = Array.from({ length: MANY }, (_, i) => ({
      path: `src/file-${i}.ts`,
      status: "modified",
      staged: false,
      unstaged: true,
      additions: 1,
      deletions: 1,
      binary: false,
    }));
    const changes = {
      taskId: "task_1",
      repositories: [{ repositoryId: "repo_0", worktreePath: "/w", branch: "grove/x", baseBranch: "main", mergeBase: "abc", ahead: 0, behind: 0, files }],
    };
    const sessions = Array.from({ length: MANY }, (_, i) => session(`ses_${i}`, { state: "waiting_for_input" }));
    stub.on("GET /api/v1/repositories", { body: repos });
    stub.on("GET /api/v1/repositories/repo_0", { body: repository("repo_0", "name-0", { setupScript: "x".repeat(200_000) }) });
    stub.on("GET /api/v1/tasks", { body: Array.from({ length: MANY }, (_, i) => task(`task_${i}`, `Task number ${i}`)) });
    stub.on("GET /api/v1/tasks/task_1", { body: task("task_1", "T", { description: "d".repeat(200_000) }) });
    stub.on("GET /api/v1/tasks/task_1/sessions", { body: sessions });
    stub.on("GET /api/v1/tasks/task_1/changes", { body: changes });
    stub.on("GET /api/v1/tasks/task_1/changes/diff", {
      body: { repositoryId: "repo_0", path: "src/file-1.ts", patch: "+line\n".repeat(40_000), binary: false, truncated: false },
    });
    stub.on("GET /api/v1/sessions/ses_1", { body: session("ses_1") });
    stub.on("GET /api/v1/sessions/ses_1/messages", { body: Array.from({ length: MANY }, (_, i) => message(`m${i}`, "agent", `message number ${i}`)) });
    stub.on("GET /api/v1/doctor", {
      body: {
        ok: false,
        checked: { environmentRows: 1, repositories: 1, taskDirectories: 1 },
        findings: Array.from({ length: MANY }, (_, i) => ({ kind: "orphan", path: `/tmp/wt-${i}`, message: "not in the database" })),
      },
    });
  });
  afterAll(() => stub.close());

  const READ_COMMANDS = [
    ["repo", "ls"],
    ["repo", "show", "repo_0"],
    ["task", "ls"],
    ["task", "show", "task_1"],
    ["task", "diff", "task_1"],
    ["task", "diff", "task_1", "--path", "src/file-1.ts"],
    ["session", "ls", "task_1"],
    ["session", "show", "ses_1"],
    ["doctor"],
    ["completion", "bash"],
    ["--help"],
  ];

  for (const args of READ_COMMANDS) {
    for (const json of [false, true]) {
      if (json && (args[0] === "completion" || args[0] === "--help")) continue;
      const argv = [...args, ...(json ? ["--json"] : []), "--server", "URL"];
      it(`grove ${argv.join(" ")} | head -1 exits 0 without a stack trace`, async () => {
        const r = await pipeIntoHead(argv.map((a) => (a === "URL" ? stub.url : a)));
        expect(r.firstLine).not.toBe("");
        expect(r.stderr).not.toMatch(/EPIPE|at .*\(|Error:/);
        // doctor exits 1 on findings, after printing them; a closed pipe ends it first, quietly.
        expect(r.code).toBe(0);
      });
    }
  }
});
