import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo, tempDir } from "../fixture/git.js";
import { apiClient, followServer, serveArgs, waitForSession } from "../fixture/server.js";
import { runResults, turn } from "./helpers.js";

/**
 * SBX-1: a descriptor the server was handed without close-on-exec by whatever started it (a
 * terminal, a supervisor, a test runner) never reaches an agent. bwrap passes every open
 * descriptor on to the command it runs, and Node's spawn does too: a directory descriptor from
 * outside would be a way out of every mount the sandbox hides (`/proc/self/fd/N/..`).
 */
const LEAKED = 40;

describe.each(ONE_DATABASE)("SBX-1 descriptors the server inherited (%s)", { timeout: 120_000 }, (kind) => {
  const t = crashServers(kind);

  it("SBX-1 a directory descriptor the server inherited is /dev/null in a confined agent and its tools: nothing behind it is readable", async () => {
    const w = await t.home();
    const outside = await tempDir("grove-inherited-");
    mkdirSync(join(outside, "deep"));
    const secret = `INHERITED-SECRET-${Date.now()}`;
    writeFileSync(join(outside, "deep", "secret.txt"), `${secret}\n`);
    const repo = await makeRepo({ name: "inherited" });
    t.cleanups.push(
      () => repo.cleanup(),
      () => rm(outside, { recursive: true, force: true }),
    );

    // The server gets the directory as descriptor 40, without close-on-exec (dup2 clears it;
    // Node marks only its lowest inherited descriptors close-on-exec when it starts).
    const dirFd = openSync(outside, "r");
    const stdio: ("ignore" | "pipe" | number)[] = ["ignore", "pipe", "pipe"];
    for (let fd = 3; fd <= LEAKED; fd++) stdio.push(fd === LEAKED ? dirFd : "ignore");
    const child = spawn(process.execPath, serveArgs(), {
      env: { ...process.env, GROVE_HOME: w.home, GROVE_DATABASE_URL: w.databaseUrl, GROVE_PORT: "0", GROVE_HOST: "127.0.0.1" },
      stdio,
    });
    closeSync(dirFd);
    t.cleanups.push(async () => {
      child.kill("SIGKILL");
      await followed.exited;
    });
    const followed = followServer(child);
    const api = apiClient(await followed.url, { home: w.home });
    // The setup leaks what it means to: the server itself holds the directory, inheritably.
    expect(readlinkSync(`/proc/${child.pid}/fd/${LEAKED}`)).toBe(outside);
    const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/${child.pid}/fdinfo/${LEAKED}`, "utf8"))![1]!;
    expect(Number.parseInt(flags, 8) & 0o2000000, "close-on-exec").toBe(0);

    const r = await api("POST", "/repositories", { path: repo.path });
    const task = (await api("POST", "/tasks", { title: "Inherited", repositories: [{ repositoryId: r.body.id }] })).body;
    const s = (await api("POST", `/tasks/${task.id}/sessions`, { agent: "scripted" })).body;
    expect((await waitForSession(api, s.id, ["waiting_for_input"], 60_000)).sandbox).toBe("confined");
    const msgs = await turn(
      { api } as never,
      s.id,
      `run readlink /proc/self/fd/${LEAKED}\nrun cat /proc/self/fd/${LEAKED}/deep/secret.txt\nrun ls /proc/self/fd/${LEAKED}/`,
    );
    const [link, cat, ls] = runResults(msgs);
    expect(link!.output.trim()).toBe("/dev/null");
    expect(cat!.code).not.toBe(0);
    expect(ls!.code).not.toBe(0);
    expect(JSON.stringify(msgs)).not.toContain(secret);
  });
});
