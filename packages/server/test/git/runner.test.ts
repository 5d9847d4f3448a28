import { execFileSync, spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitRunner, subcommandOf } from "../../src/git/runner.js";
import { branchExists, resolveCommit } from "../../src/git/repository.js";
import { makeRepo, tempDir, type TestRepo } from "../fixture/git.js";

const repos: TestRepo[] = [];
async function repo(): Promise<TestRepo> {
  const r = await makeRepo();
  repos.push(r);
  return r;
}
const dirs: string[] = [];
async function scratch(prefix: string): Promise<string> {
  const d = await tempDir(prefix);
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.cleanup()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs two critical sections concurrently and reports whether they overlapped. */
async function overlapped(git: GitRunner, pathA: string, pathB: string): Promise<boolean> {
  const spans: { start: number; end: number }[] = [];
  const section = (p: string, branch: string) =>
    git.withRepoLock(p, async () => {
      const start = performance.now();
      await git.run(["branch", branch], { cwd: p }); // a real mutation inside the lock
      await sleep(150);
      spans.push({ start, end: performance.now() });
    });
  const tag = Math.random().toString(36).slice(2, 8);
  await Promise.all([section(pathA, `a-${tag}`), section(pathB, `b-${tag}`)]);
  const [x, y] = spans;
  return x!.start < y!.end && y!.start < x!.end;
}

// Every behaviour of the seam holds both ways git can be started (git/fast-spawn.ts).
describe.each([
  { how: "posix_spawn addon", withoutFork: true },
  { how: "child_process.spawn", withoutFork: false },
])("GitRunner (WT-6), git started by $how", ({ withoutFork }) => {
  it("WT-6 runs argv arrays with LC_ALL=C and counts spawned processes", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    const res = await git.run(["rev-parse", "--abbrev-ref", "HEAD"], { cwd: r.path });
    expect(res.stdout).toBe("main\n");
    expect(res.exitCode).toBe(0);
    expect(res.stdoutBuffer.toString()).toBe("main\n");
    const env = await git.run(["-c", "alias.env=!env", "env"], { cwd: r.path });
    expect(env.stdout).toMatch(/^LC_ALL=C$/m);
    expect(env.stdout).toMatch(/^GIT_TERMINAL_PROMPT=0$/m);
    expect(git.spawnCount).toBe(2);
  });

  it("WT-6 network commands get batch-mode ssh and no askpass", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    const env = await git.run(["-c", "alias.env=!env", "env"], { cwd: r.path, network: true });
    expect(env.stdout).toMatch(/^GIT_SSH_COMMAND=.*-o BatchMode=yes$/m);
    expect(env.stdout).toMatch(/^GIT_ASKPASS=$/m);
  });

  it("SEC-7 git (and so its hooks) gets the allow-list: no tokens, no GROVE_*, no inherited GIT_CONFIG_* values; proxies only for network commands", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    const saved = { ...process.env };
    Object.assign(process.env, {
      GITHUB_TOKEN: "gh-secret",
      AWS_SECRET_ACCESS_KEY: "aws-secret",
      GROVE_SOMETHING: "grove-x",
      GIT_CONFIG_PARAMETERS: "'http.extraheader'='Authorization: secret'",
      GIT_AUTHOR_NAME: "Person",
      LC_TIME: "C",
      HTTPS_PROXY: "http://proxy.invalid:3128",
    });
    try {
      const local = (await git.run(["-c", "alias.env=!env", "env"], { cwd: r.path })).stdout;
      const remote = (await git.run(["-c", "alias.env=!env", "env"], { cwd: r.path, network: true })).stdout;
      for (const out of [local, remote]) {
        expect(out).not.toMatch(/secret|GROVE_SOMETHING|GITHUB_TOKEN|AWS_SECRET/);
        expect(out).toMatch(/^GIT_AUTHOR_NAME=Person$/m);
        expect(out).toMatch(/^LC_TIME=C$/m);
      }
      expect(local).not.toMatch(/^HTTPS_PROXY=/m);
      expect(remote).toMatch(/^HTTPS_PROXY=http:\/\/proxy.invalid:3128$/m);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it("WT-6 a failing command throws git_failed with the subcommand and stderr's last line", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    const err = await git.run(["rev-parse", "--verify", "no-such-ref"], { cwd: r.path }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "git_failed", details: { args: ["rev-parse"], exitCode: 128 } });
    expect((err as Error).message).toContain("git rev-parse failed (exit 128)");
    expect((err as Error).message).toContain("Needed a single revision");
    const ok = await git.run(["rev-parse", "--verify", "--quiet", "no-such-ref"], { cwd: r.path, okExitCodes: [1] });
    expect(ok.exitCode).toBe(1);
  });

  it("WT-6 names subcommands without user input", () => {
    expect(subcommandOf(["-c", "a=b", "worktree", "add", "-b", "secret", "--", "/p"])).toEqual(["worktree", "add"]);
    expect(subcommandOf(["--no-pager", "diff", "HEAD"])).toEqual(["diff"]);
  });

  it("WT-6 a timeout kills the process group and throws git_timeout", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    // Unique on the machine: `ps` lists every user's processes, another suite's run of this test included.
    const marker = `31.${randomInt(1e9)}`;
    const t0 = performance.now();
    const err = await git.run(["-c", `alias.hang=!sleep ${marker}`, "hang"], { cwd: r.path, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "git_timeout", details: { args: ["hang"] } });
    expect(performance.now() - t0).toBeLessThan(5_000);
    await sleep(200);
    const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(ps.split("\n").filter((l) => l.startsWith(`sleep ${marker}`))).toEqual([]);
  });

  it("SBX-4.7 a pinned git held by a FIFO planted in its git dir (opening its index; reading its HEAD while a writer keeps it open) is stopped with workspace_tampered", async () => {
    const r = await repo();
    const wt = join(await scratch("grove-fifo-wt-"), "wt");
    r.git("worktree", "add", "-q", "-b", `fifo-${randomInt(1e9)}`, wt);
    const gitDir = execFileSync("git", ["-C", wt, "rev-parse", "--absolute-git-dir"], { encoding: "utf8" }).trim();
    await rm(join(gitDir, "index"));
    execFileSync("mkfifo", [join(gitDir, "index")]);
    const git = new GitRunner({ withoutFork });
    const status = () => git.run(["status", "--porcelain"], { cwd: { gitDir, workTree: wt } }).catch((e: unknown) => e);
    // No writer: git waits in the open.
    expect(await status()).toMatchObject({ code: "workspace_tampered", details: { path: wt } });
    // A writer that never writes: git's open succeeds and it waits in the read, on that path
    // (HEAD: git reads it whole; an index it first sizes with fstat, and a FIFO's size is 0).
    await rm(join(gitDir, "HEAD"));
    execFileSync("mkfifo", [join(gitDir, "HEAD")]);
    const writer = spawn("sh", ["-c", `exec sleep 60 > '${join(gitDir, "HEAD")}'`], { stdio: "ignore" });
    try {
      const err = await status();
      expect(err).toMatchObject({ code: "workspace_tampered" });
      expect((err as Error).message).toContain(join(gitDir, "HEAD"));
    } finally {
      writer.kill("SIGKILL");
    }
    expect(git.runningCount).toBe(0);
  });

  it("WT-6 handles large stdout and caps it on request", async () => {
    const r = await repo();
    const big = "0123456789abcdef\n".repeat(600_000); // ~10 MB
    await writeFile(join(r.path, "big.txt"), big);
    r.git("add", "big.txt");
    r.git("commit", "-qm", "big");
    const git = new GitRunner({ withoutFork });
    const res = await git.run(["show", "HEAD:big.txt"], { cwd: r.path });
    expect(res.stdoutBuffer.length).toBe(big.length);
    const capped = await git.run(["show", "HEAD:big.txt"], { cwd: r.path, maxStdoutBytes: 1000 });
    expect(capped.stdoutTruncated).toBe(true);
    expect(capped.stdoutBuffer.length).toBe(1000);
  });

  it("WT-6 feeds stdin only when input is given", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    const res = await git.run(["hash-object", "--stdin"], { cwd: r.path, input: "hello\n" });
    expect(res.stdout.trim()).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
  });

  it("SEC-1 descriptor 3 reaches git (credentials are handed over on it, never in argv or the environment)", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    const res = await git.run(["-c", "alias.secret=!cat <&3", "secret"], { cwd: r.path, fd3: Buffer.from("s3cr3t\n") });
    expect(res.stdout).toBe("s3cr3t\n");
  });

  it("WT-6 git leads its own process group and session, starts with every signal at its default, and gets descriptors 0–2 and none of the server's", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    // git runs the alias through the shell: $$ is that shell, git's child in git's group, and
    // $PPID is git, waiting for it (the shell itself blocks signals while it starts a command).
    // No pipeline in the probe: a shell holds a pipeline's descriptors while it sets one up.
    // git blocks every signal around its own fork of the shell and restores its mask after it;
    // on a busy machine the shell can look before git is back, so the probe looks again until
    // the mask is empty (at most a second): a mask git was started with stays and is reported.
    const probe = `!f() { i=0; while m=$(grep '^SigBlk' /proc/$PPID/status); do case "$m" in *0000000000000000) break;; esac; [ $i -ge 100 ] && break; i=$((i+1)); sleep 0.01; done; echo "$m"; grep '^SigIgn' /proc/$PPID/status; echo FDS; ls /proc/$$/fd; echo END; cut -d' ' -f5,6 /proc/$PPID/stat; echo $PPID; }; f`;
    const lines = (await git.run(["-c", `alias.probe=${probe}`, "probe"], { cwd: r.path })).stdout.trim().split("\n");
    expect(lines[0]).toBe("SigBlk:\t0000000000000000");
    // No signal ignored (Node ignores SIGPIPE and SIGXFSZ; an ignored signal survives exec), but
    // glibc's posix_spawn leaves its own two internal signals (32, 33) ignored, and glibc
    // programs set their handlers for those at start.
    expect(BigInt(`0x${lines[1]!.replace("SigIgn:\t", "")}`) & ~0x180000000n).toBe(0n);
    // Besides 0–2, only what this process itself was given without close-on-exec (the test
    // runner hands its workers such a pipe) may reach a child; the pipes git's output and input
    // go through, and every other descriptor of the server, must not.
    const inherited = readdirSync("/proc/self/fd").filter((fd) => {
      let info: string;
      try {
        info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
      } catch {
        return false; // the directory listing's own descriptor, closed by now
      }
      const flags = /^flags:\s+(\d+)/m.exec(info)?.[1];
      return flags !== undefined && (Number.parseInt(flags, 8) & 0o2000000) === 0 && Number(fd) > 2;
    });
    const fds = lines.slice(lines.indexOf("FDS") + 1, lines.indexOf("END"));
    expect(fds.slice(0, 3)).toEqual(["0", "1", "2"]);
    expect(fds.slice(3).filter((fd) => !inherited.includes(fd))).toEqual([]);
    const [pgrp, session] = lines.at(-2)!.split(" ");
    expect(pgrp).toBe(lines.at(-1));
    expect(session).toBe(lines.at(-1));
  });

  it("WT-6 a global cap bounds concurrent git processes", async () => {
    const r = await repo();
    const live = await scratch("grove-live-");
    // Each process registers itself, waits, and reports how many were alive at that moment.
    const probe = `!f() { touch "${live}/$$"; sleep 0.3; ls "${live}" | wc -l; rm "${live}/$$"; }; f`;
    const peak = async (max: number) => {
      const git = new GitRunner({ maxConcurrent: max, withoutFork });
      const runs = await Promise.all(Array.from({ length: 6 }, () => git.run(["-c", `alias.probe=${probe}`, "probe"], { cwd: r.path })));
      return Math.max(...runs.map((x) => Number(x.stdout.trim())));
    };
    expect(await peak(2)).toBeLessThanOrEqual(2);
    // Control: without a tight cap the same probes do overlap.
    expect(await peak(6)).toBeGreaterThan(2);
  });

  it("WT-6 a symlinked alias of a repository shares its mutation lock", async () => {
    const r = await repo();
    const other = await repo();
    const alias = join(await scratch("grove-alias-"), "alias");
    await symlink(r.path, alias);
    const git = new GitRunner({ withoutFork });
    expect(await overlapped(git, alias, r.path)).toBe(false);
    // Control: different repositories do not share a lock, so the same sections overlap.
    expect(await overlapped(git, alias, other.path)).toBe(true);
  });

  it("WT-6 the lock is re-entrant within one call chain", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    const v = await git.withRepoLock(r.path, () => git.withRepoLock(r.path, async () => 42));
    expect(v).toBe(42);
  });

  it("SEC-3 option-looking refs are names, never options", async () => {
    const r = await repo();
    const git = new GitRunner({ withoutFork });
    expect(await resolveCommit(git, r.path, "--upload-pack=x")).toBeNull();
    expect(await resolveCommit(git, r.path, "--git-dir")).toBeNull();
    expect(await branchExists(git, r.path, "--upload-pack=x")).toBe(false);
    expect(await resolveCommit(git, r.path, "main")).toBe(r.git("rev-parse", "main").trim());
    expect(await branchExists(git, r.path, "main")).toBe(true);
  });
});
