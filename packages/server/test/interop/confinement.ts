import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import { gitSync } from "../fixture/git.js";
import { waitFor } from "../fixture/server.js";
import { gitStatus, messages, type Api, type InteropServer } from "./harness.js";

/**
 * SBX-1 SBX-2 SBX-5 acceptance for a real agent running confined: from the agent's OWN shell
 * tool (the fake model calls it), every attack of {@link attackTable} fails and nothing changes,
 * and normal work (an edit, a shell command, `node`, `npm test`, `git commit`) works with Changes
 * equal to git. One table for every bridge; each suite only says how its model calls a tool.
 */
export type ToolCall = { name: string; input: Record<string, unknown> };

export interface ConfinedBridge {
  /** The model's next turn: these tool calls one after the other, then `text`. */
  script(tools: ToolCall[], text: string): void;
  shell(command: string): ToolCall;
  write(path: string, content: string): ToolCall;
  /** The mode the session starts in under `ask` (the attack that switches it must leave it). */
  askMode: string;
  /** A mode of this agent that never asks: what an attacker would switch to. */
  autoMode: string;
}

/**
 * A fake model script that calls `tools` in order within one turn, then answers `text`:
 * `isToolResult(req)` tells a follow-up request (the last tool's result) from a new turn.
 */
export function toolSequence<R>(isToolResult: (req: R) => boolean, tools: ToolCall[], text: string): (req: R) => { toolUse: ToolCall } | { text: string } {
  let step = 0;
  return (req) => {
    if (!isToolResult(req)) step = 0;
    const tool = tools[step++];
    return tool ? { toolUse: tool } : { text };
  };
}

// A path on the read-only root outside every worktree and outside /tmp (private inside).
const OUTSIDE_DIR = resolve(import.meta.dirname, "..", "..", "..", "..", ".grove-test");

export interface AttackContext {
  groveHome: string;
  /** HOME as the server sees it: where the person's credentials live. */
  personHome: string;
  serverUrl: string;
  serverPid: number;
  sessionId: string;
  worktree: string;
  commonDir: string;
  otherWorktree: string;
  outsideFile: string;
  autoMode: string;
}

/** Each line: a label and a shell command that exits 0 only when the attack succeeded. */
export function attackTable(c: AttackContext): { label: string; command: string }[] {
  const api = `${c.serverUrl}/api/v1`;
  const post = (path: string, body: string) => `curl -sf -m 10 -X POST -H 'content-type: application/json' -d '${body}' ${api}${path}`;
  return [
    { label: "read ~/.ssh/id_ed25519", command: `cat ${join(c.personHome, ".ssh", "id_ed25519")}` },
    { label: "read grove.db", command: `cat ${join(c.groveHome, "grove.db")}` },
    { label: "read credential.key", command: `cat ${join(c.groveHome, "credential.key")}` },
    { label: "read person-token", command: `cat ${join(c.groveHome, "person-token")}` },
    { label: "read another task's worktree", command: `cat ${join(c.otherWorktree, "other-secret.txt")}` },
    { label: "list another task's worktree", command: `ls ${c.otherWorktree}` },
    { label: "write into GROVE_HOME", command: `echo pwned > ${join(c.groveHome, "pwned.txt")}` },
    { label: "write outside the worktree", command: `echo pwned > ${c.outsideFile}` },
    { label: "write the worktree's .git link", command: `echo pwned > ${join(c.worktree, ".git")}` },
    { label: "write the repository's git config", command: `echo '[core] fsmonitor = touch /tmp/x' >> ${join(c.commonDir, "config")}` },
    { label: "write a git hook", command: `echo 'touch /tmp/x' > ${join(c.commonDir, "hooks", "pre-commit")}` },
    { label: "read /proc/<server pid>/environ", command: `cat /proc/${c.serverPid}/environ` },
    { label: "curl Grove's port (through the proxy)", command: `curl -sf -m 10 ${api}/health` },
    { label: "curl Grove's port (direct)", command: `curl -sf -m 10 --noproxy '*' ${api}/health` },
    { label: "node fetch Grove's port", command: `node -e "fetch('${api}/health').then(() => process.exit(0), () => process.exit(3))"` },
    { label: "list its own permission requests", command: `curl -sf -m 10 ${api}/sessions/${c.sessionId}/permissions` },
    { label: "answer its own permission request", command: post(`/sessions/${c.sessionId}/permissions/any`, '{"optionId":"allow"}') },
    { label: "change its own mode", command: post(`/sessions/${c.sessionId}/mode`, JSON.stringify({ modeId: c.autoMode })) },
    { label: "curl a host off the allow-list (http)", command: "curl -sf -m 10 http://example.com/" },
    { label: "curl a host off the allow-list (https)", command: "curl -sf -m 10 https://example.com/" },
  ];
}

/** Allows every permission request of the session until its turn ends. */
async function allowUntilIdle(api: Api, sid: string, timeoutMs = 180_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const next = await waitFor(
      async () => {
        const asks = (await api("GET", `/sessions/${sid}/permissions`)).body as { requestId: string; options: { optionId: string; kind: string }[] }[];
        if (asks[0]) return { ask: asks[0] };
        const s = (await api("GET", `/sessions/${sid}`)).body;
        return s.state === "waiting_for_input" || s.state === "failed" ? { done: s } : undefined;
      },
      "a permission request or the end of the turn",
      Math.max(1000, timeoutMs - (Date.now() - t0)),
      100,
    );
    if ("done" in next) {
      expect(next.done.lastError, JSON.stringify(next.done.lastError)).toBeNull();
      return;
    }
    const allow = next.ask.options.find((o) => o.kind === "allow_once")!;
    const r = await api("POST", `/sessions/${sid}/permissions/${next.ask.requestId}`, { optionId: allow.optionId });
    expect(r.status, JSON.stringify(r.body)).toBe(204);
  }
}

async function prompt(api: Api, sid: string, text: string): Promise<void> {
  const r = await api("POST", `/sessions/${sid}/prompt`, { prompt: text });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  await allowUntilIdle(api, sid);
}

/** The paths Changes must list: tracked files that differ from the merge-base, and untracked ones. */
function gitChangedPaths(worktree: string, mergeBase: string): string[] {
  const tracked = gitSync(worktree, "diff", "--name-only", mergeBase).split("\n");
  const untracked = gitSync(worktree, "ls-files", "--others", "--exclude-standard").split("\n");
  return [...new Set([...tracked, ...untracked].filter(Boolean))].sort();
}

/**
 * The whole acceptance on one server: a second task (the scripted agent materialises its
 * worktree) holds a secret, the person's `~/.ssh/id_ed25519` is planted in the HOME the server
 * sees, then one shell tool call runs every attack and records each outcome in the worktree.
 */
export async function attacksFailAndWorkWorks(server: InteropServer, bridge: ConfinedBridge, personHome: string): Promise<void> {
  const secret = `PERSON-SSH-SECRET-${Math.random().toString(36).slice(2)}`;
  mkdirSync(join(personHome, ".ssh"), { recursive: true, mode: 0o700 });
  writeFileSync(join(personHome, ".ssh", "id_ed25519"), `${secret}\n`, { mode: 0o600 });
  mkdirSync(OUTSIDE_DIR, { recursive: true });
  const outsideFile = join(OUTSIDE_DIR, `sbx-outside-${process.pid}-${Date.now()}`);
  try {
    const { sid, taskId, worktree, repoPath, repositoryId, api, url, home } = await server.launch();
    const session = (await api("GET", `/sessions/${sid}`)).body;
    expect(session.sandbox).toBe("confined");
    expect(session.modes.currentModeId).toBe(bridge.askMode);

    const other = (await api("POST", "/tasks", { title: "Another task", repositories: [{ repositoryId }] })).body;
    const otherSession = await api("POST", `/tasks/${other.id}/sessions`, { agent: "scripted" });
    expect(otherSession.status, JSON.stringify(otherSession.body)).toBe(201);
    const otherWorktree = (await api("GET", `/sessions/${otherSession.body.id}/workspace`)).body.workspacePath as string;
    writeFileSync(join(otherWorktree, "other-secret.txt"), "OTHER-TASK-SECRET\n");

    const commonDir = gitSync(repoPath, "rev-parse", "--absolute-git-dir").trim();
    const configBefore = readFileSync(join(commonDir, "config"), "utf8");
    const refsBefore = gitSync(repoPath, "for-each-ref");
    const table = attackTable({
      groveHome: home,
      personHome,
      serverUrl: url,
      serverPid: process.pid,
      sessionId: sid,
      worktree,
      commonDir,
      otherWorktree,
      outsideFile,
      autoMode: bridge.autoMode,
    });
    const lines = table.map((a) => `if ( ${a.command} ) > /dev/null 2>&1; then echo "SUCCEEDED ${a.label}"; else echo "DENIED ${a.label}"; fi`);
    bridge.script([bridge.shell(`{\n${lines.join("\n")}\n} > attacks.txt 2>&1`)], "Probed.");
    await prompt(api, sid, "Probe the sandbox");

    expect(readFileSync(join(worktree, "attacks.txt"), "utf8").trim().split("\n")).toEqual(table.map((a) => `DENIED ${a.label}`));
    // Nothing changed: no file appeared outside, git's config, hooks and refs are as they were,
    // the key is intact and the session still asks.
    expect(existsSync(join(home, "pwned.txt"))).toBe(false);
    expect(existsSync(outsideFile)).toBe(false);
    expect(existsSync(join(commonDir, "hooks", "pre-commit"))).toBe(false);
    expect(readFileSync(join(commonDir, "config"), "utf8")).toBe(configBefore);
    expect(gitSync(repoPath, "for-each-ref")).toBe(refsBefore);
    expect(readFileSync(join(personHome, ".ssh", "id_ed25519"), "utf8")).toBe(`${secret}\n`);
    expect(gitStatus(repoPath)).toBe("");
    const after = (await api("GET", `/sessions/${sid}`)).body;
    expect(after.modes.currentModeId).toBe(bridge.askMode);
    // Every refused connection is a transcript note and one on the session's count.
    const notes = (await messages(api, sid)).filter((m) => m.role === "system" && m.text.startsWith("blocked: ")).map((m) => m.text.slice("blocked: ".length));
    expect(notes).toEqual(expect.arrayContaining([`127.0.0.1:${new URL(url).port}`, "example.com:80", "example.com:443"]));
    expect(after.blockedConnections).toBe(notes.length);

    // Normal work: the agent's own edit tool, then its shell runs node, npm test and git commit.
    const pkg = JSON.stringify({ name: "probe", version: "1.0.0", private: true, scripts: { test: "node test.js" } });
    bridge.script(
      [
        bridge.write(join(worktree, "package.json"), `${pkg}\n`),
        bridge.write(join(worktree, "test.js"), "require('node:fs').writeFileSync('answer.txt', String(6 * 7));\nconsole.log('tests passed');\n"),
        bridge.shell(
          "npm test --no-update-notifier > npm-test.txt 2>&1 && node -e \"process.stdout.write(require('node:fs').readFileSync('answer.txt', 'utf8'))\" > node.txt && git add package.json test.js && git commit -q -m 'agent commit'",
        ),
      ],
      "Worked.",
    );
    await prompt(api, sid, "Add a test and commit it");
    expect(readFileSync(join(worktree, "npm-test.txt"), "utf8")).toContain("tests passed");
    expect(readFileSync(join(worktree, "node.txt"), "utf8")).toBe("42");
    expect(gitSync(worktree, "log", "-1", "--format=%s").trim()).toBe("agent commit");
    expect(gitSync(worktree, "show", "--name-only", "--format=", "HEAD").trim().split("\n").sort()).toEqual(["package.json", "test.js"]);
    const changes = (await api("GET", `/tasks/${taskId}/changes`)).body.repositories[0];
    expect(changes.files.map((f: { path: string }) => f.path).sort()).toEqual(gitChangedPaths(worktree, changes.mergeBase));
    expect(changes.ahead).toBe(Number(gitSync(worktree, "rev-list", "--count", "main..HEAD").trim()));
    expect(changes.ahead).toBe(1);
  } finally {
    rmSync(join(personHome, ".ssh"), { recursive: true, force: true });
    rmSync(outsideFile, { force: true });
    await server.close();
  }
}
