import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const ENV = {
  ...process.env,
  LC_ALL: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Harness",
  GIT_AUTHOR_EMAIL: "harness@grove.invalid",
  GIT_COMMITTER_NAME: "Harness",
  GIT_COMMITTER_EMAIL: "harness@grove.invalid",
};

/** `git <args>` in `cwd`, stdout. */
export function g(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 }).trim();
}

/**
 * A bare repository at `root/<key>.git` with a work checkout beside it (`<bare>.work`) used to
 * make commits and push them. `files` seeds the first commit on `main`.
 */
export function makeRemoteRepo(root: string, key: string, files: Record<string, string> = { "README.md": "# remote\n" }) {
  const bare = join(root, `${key}.git`);
  const work = `${bare}.work`;
  mkdirSync(dirname(bare), { recursive: true });
  g(root, "init", "-q", "--bare", "-b", "main", bare);
  g(root, "init", "-q", "-b", "main", work);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, rel)), { recursive: true });
    writeFileSync(join(work, rel), content);
  }
  g(work, "add", "-A");
  g(work, "commit", "-q", "-m", "initial");
  g(work, "push", "-q", bare, "main");
  return {
    bare,
    work,
    /** Commits a file on `main` and pushes it; returns the commit id. */
    commit(path: string, content: string, message = `change ${path}`): string {
      writeFileSync(join(work, path), content);
      g(work, "add", "-A");
      g(work, "commit", "-q", "-m", message);
      g(work, "push", "-q", bare, "main");
      return g(work, "rev-parse", "HEAD");
    },
    /**
     * A pull request from a fork: the commit exists only in a fork repository, and the host
     * publishes it under `ref` of this repository (as GitHub does for refs/pull/N/head).
     */
    forkPullRequest(ref: string, file: string, content: string): string {
      const fork = `${bare}.fork`;
      g(root, "clone", "-q", bare, fork);
      writeFileSync(join(fork, file), content);
      g(fork, "add", "-A");
      g(fork, "commit", "-q", "-m", "fork change");
      const sha = g(fork, "rev-parse", "HEAD");
      g(bare, "fetch", "-q", fork, `HEAD:${ref}`);
      return sha;
    },
  };
}
