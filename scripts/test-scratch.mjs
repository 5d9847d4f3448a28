// Where the suite's scratch files live. The tests create and delete tens of thousands of files
// (repositories, worktrees, Grove homes, browser profiles) under the system temp dir. On a disk
// filesystem every one of them costs the kernel an inode allocation (on ext4 without a journal,
// as on these CI machines, a scan past recently deleted inodes too) and a later writeback; in
// memory (tmpfs) none of that happens. So when the person has not chosen a TMPDIR, the suite
// gets a private directory in /dev/shm, which Linux mounts as tmpfs, and it is removed after the
// run (docs/decisions/2026-12-07-test-scratch-in-memory.md). GROVE_TEST_SCRATCH=disk keeps the
// system temp dir (to compare, or on a machine short of memory).
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, statfsSync } from "node:fs";

const TMPFS_MAGIC = 0x01021994;
/** Below this much free memory in /dev/shm the suite stays on disk: its peak is a few hundred MB. */
const MIN_FREE_BYTES = 2 * 1024 ** 3;

/** The options of the mount at `target` in a mounts table (`/proc/mounts` format), empty when it is not listed. */
function mountOptions(mounts, target) {
  let text = "";
  try {
    text = readFileSync(mounts, "utf8");
  } catch {
    return [];
  }
  const line = text.split("\n").findLast((l) => l.split(" ")[1] === target);
  return line ? line.split(" ")[3].split(",") : [];
}

/**
 * The scratch directory for one run: `{ dir, reason }` with `dir` set when the suite should use
 * it as TMPDIR, or `dir` undefined and `reason` saying why not.
 */
export function chooseScratch(env = process.env, shm = "/dev/shm", mounts = "/proc/mounts") {
  if (env.TMPDIR) return { reason: `TMPDIR is set (${env.TMPDIR})` };
  if (env.GROVE_TEST_SCRATCH === "disk") return { reason: "GROVE_TEST_SCRATCH=disk" };
  if (env.GROVE_TEST_SCRATCH !== undefined && env.GROVE_TEST_SCRATCH !== "memory") {
    throw new Error(`GROVE_TEST_SCRATCH must be "memory" or "disk", not ${JSON.stringify(env.GROVE_TEST_SCRATCH)}`);
  }
  let fs;
  try {
    accessSync(shm, constants.W_OK | constants.X_OK);
    fs = statfsSync(shm);
  } catch {
    return { reason: `${shm} is missing or not writable` };
  }
  if (fs.type !== TMPFS_MAGIC) return { reason: `${shm} is not a tmpfs` };
  if (fs.bavail * fs.bsize < MIN_FREE_BYTES) return { reason: `${shm} has less than 2 GiB free` };
  // The tests run what they write there (git hooks, stand-in agents and editors).
  if (mountOptions(mounts, shm).includes("noexec")) return { reason: `${shm} is mounted noexec` };
  // A short name: Unix socket paths below it are limited to 107 bytes.
  return { dir: mkdtempSync(`${shm}/gt-`) };
}

/** Removes the run's scratch directory; what a stray process still holds open is left (a warning, not a failure). */
export function removeScratch(dir) {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (e) {
    process.stderr.write(`warning: could not remove the test scratch directory ${dir}: ${e.message}\n`);
  }
}
