// Where the suite's scratch files live. The tests create and delete tens of thousands of files
// (repositories, worktrees, Grove homes, browser profiles) under the system temp dir. On a disk
// filesystem each one costs the kernel an inode allocation (on ext4 without a journal, as on
// these CI machines, a scan past recently deleted inodes too) and each delete a discard; in
// memory (tmpfs) neither happens. So where it can, `npm test` runs the suite in a private mount
// namespace with a tmpfs mounted on a fresh directory under /tmp and TMPDIR pointing at it: paths
// stay under /tmp as before (the agent sandbox's private /tmp hides them alike), nothing outside
// the suite sees the mount, and the kernel frees it when the suite's last process exits, even
// after a kill -9 (docs/decisions/2026-12-07-test-scratch-in-memory.md). That takes root (CI runs
// as root); elsewhere, or with TMPDIR set or GROVE_TEST_SCRATCH=disk, the suite keeps the system
// temp dir.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";

/** Below this much available memory the suite stays on disk: its scratch peaks at a few hundred MB. */
const MIN_AVAILABLE_BYTES = 2 * 1024 ** 3;

// $0 is the directory, the rest the command to run with the tmpfs mounted on it.
const MOUNT_THEN_RUN = 'mount -t tmpfs -o mode=1777 grove-test "$0" && exec "$@"';

function availableMemory(meminfo) {
  const m = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync(meminfo, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * The scratch directory for one run: `{ dir, command(cmd, args) }` when the suite should run in
 * memory (`command` wraps the suite's command line in the namespace that mounts it), or
 * `{ reason }` saying why it stays in the system temp dir.
 */
export function chooseScratch(env = process.env, opts = {}) {
  const { tmp = "/tmp", unshare = "unshare", uid = process.getuid?.(), meminfo = "/proc/meminfo" } = opts;
  if (env.TMPDIR) return { reason: `TMPDIR is set (${env.TMPDIR})` };
  if (env.GROVE_TEST_SCRATCH === "disk") return { reason: "GROVE_TEST_SCRATCH=disk" };
  if (env.GROVE_TEST_SCRATCH !== undefined && env.GROVE_TEST_SCRATCH !== "memory") {
    throw Object.assign(new Error(`GROVE_TEST_SCRATCH must be "memory" or "disk", not ${JSON.stringify(env.GROVE_TEST_SCRATCH)}`), {
      code: "bad_test_scratch",
    });
  }
  if (uid !== 0) return { reason: "mounting a private tmpfs takes root" };
  try {
    if (availableMemory(meminfo) < MIN_AVAILABLE_BYTES) return { reason: "less than 2 GiB of memory available" };
  } catch {
    return { reason: `${meminfo} is unreadable` };
  }
  // A short name: Unix socket paths below it are limited to 107 bytes.
  const dir = mkdtempSync(`${tmp}/gt-`);
  const ns = ["--mount", "--propagation", "private", "--", "sh", "-c", MOUNT_THEN_RUN, dir];
  // The same namespace and mount once with `true`: a container without the right to mount says so here.
  const probe = spawnSync(unshare, [...ns, "true"], { encoding: "utf8", timeout: 10_000 });
  if (probe.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: `a private tmpfs could not be mounted (${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()})` };
  }
  return { dir, command: (cmd, args) => [unshare, [...ns, cmd, ...args]] };
}

/** Removes the run's (by then empty) mount point; a failure is a warning, not a failed run. */
export function removeScratch(dir) {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (e) {
    process.stderr.write(`warning: could not remove the test scratch directory ${dir}: ${e.message}\n`);
  }
}
