import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EgressProxy, egressRunDir } from "../../src/sandbox/egress-proxy.js";
import { crashServers } from "../fixture/crash.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo, tempDir } from "../fixture/git.js";
import { waitFor, waitForSession } from "../fixture/server.js";

const none = { allow: [], forbiddenPorts: () => [], onBlocked: () => undefined };

/** The private socket directories below `dir` (none when it does not exist). */
function socketDirs(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe("SBX-2 where the egress proxy's socket lives", () => {
  const proxies: EgressProxy[] = [];
  afterEach(async () => {
    for (const p of proxies.splice(0)) await p.close();
  });

  it("SBX-2 below the server's run dir, in a 0700 directory of its own, removed by close()", async () => {
    const runDir = egressRunDir(await tempDir("grove-egress-home-"));
    const proxy = await EgressProxy.start({ ...none, runDir });
    proxies.push(proxy);
    expect(proxy.socketPath.startsWith(`${runDir}/p-`)).toBe(true);
    expect(lstatSync(proxy.socketPath).isSocket()).toBe(true);
    expect(statSync(join(proxy.socketPath, "..")).mode & 0o777).toBe(0o700);
    await proxies.pop()!.close();
    expect(socketDirs(runDir)).toEqual([]);
  });

  it("SBX-2 a run dir too deep for a Unix socket path: the system temp dir instead, still removed by close()", async () => {
    const runDir = egressRunDir(join(await tempDir("grove-egress-home-"), "d".repeat(100)));
    const proxy = await EgressProxy.start({ ...none, runDir });
    proxies.push(proxy);
    expect(proxy.socketPath.startsWith(join(tmpdir(), "grove-egress-"))).toBe(true);
    expect(Buffer.byteLength(proxy.socketPath)).toBeLessThanOrEqual(107);
    const dir = join(proxy.socketPath, "..");
    await proxies.pop()!.close();
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(runDir)).toBe(false);
  });

  it("SBX-2 a start that fails leaves no socket directory behind", async () => {
    const runDir = egressRunDir(await tempDir("grove-egress-home-"));
    await expect(EgressProxy.start({ ...none, runDir, maxHeadBytes: -1 })).rejects.toThrow();
    expect(socketDirs(runDir)).toEqual([]);
  });
});

describe.each(ONE_DATABASE)("SBX-2 egress sockets of a server killed mid-session (%s)", { timeout: 120_000 }, (kind) => {
  const t = crashServers(kind);

  it("SBX-2 LIVE-1 kill -9 with a confined agent running leaves its socket dir in the home; the next server on that home starts without it", async () => {
    const w = await t.home();
    const repo = await makeRepo();
    t.cleanups.push(() => repo.cleanup());
    const runDir = egressRunDir(w.home);
    const first = await w.start();
    const r = await first.api("POST", "/repositories", { path: repo.path });
    const task = (await first.api("POST", "/tasks", { title: "Egress", repositories: [{ repositoryId: r.body.id }] })).body;
    const session = (await first.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say ready" })).body;
    expect((await waitForSession(first.api, session.id, ["waiting_for_input"], 60_000)).sandbox).toBe("confined");
    const left = socketDirs(runDir);
    expect(left).toHaveLength(1);
    expect(lstatSync(join(runDir, left[0]!, "s")).isSocket()).toBe(true);

    first.server.child.kill("SIGKILL");
    await first.server.exited;
    expect(socketDirs(runDir)).toEqual(left);

    const second = await w.start();
    expect(socketDirs(runDir)).not.toContain(left[0]);
    // The session's next agent gets a fresh socket there; ending it removes that one too.
    await second.api("POST", `/sessions/${session.id}/resume`);
    await waitForSession(second.api, session.id, ["waiting_for_input"], 60_000);
    await waitFor(() => socketDirs(runDir).length === 1, "the resumed agent's socket dir");
    expect(socketDirs(runDir)).not.toContain(left[0]);
    expect((await second.api("DELETE", `/sessions/${session.id}`)).status).toBe(204);
    await waitFor(() => socketDirs(runDir).length === 0, "the socket dir removed with its agent");
  });
});
