import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * File and git effects of the scripted agent's commands (SES-9). Part of the scripted agent
 * program; every function throws an Error whose message the agent reports to the client.
 */

/** `\n` in write/append text means a newline (a script is one command per line). */
export function unescapeText(text: string): string {
  return text.replace(/\\n/g, "\n");
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Absolute path of `rel` inside `cwd`, refusing anything that escapes it: absolute paths, `..`,
 * a symlink (in the path or an existing parent) pointing outside, and `.git` internals.
 */
export function resolveInside(cwd: string, rel: string): string {
  if (!rel) throw new Error("missing path");
  if (isAbsolute(rel)) throw new Error(`path must be relative to the workspace: ${rel}`);
  const target = resolve(cwd, rel);
  if (!isInside(cwd, target) || target === resolve(cwd)) throw new Error(`path escapes the workspace: ${rel}`);
  if (relative(cwd, target).split(sep).includes(".git")) throw new Error(`refusing to touch git internals: ${rel}`);
  // Lexically inside; now make sure no symlink on the way leads out.
  const realRoot = realpathSync(cwd);
  let probe = target;
  while (!existsSync(probe)) probe = dirname(probe);
  if (!isInside(realRoot, realpathSync(probe))) throw new Error(`path escapes the workspace through a symlink: ${rel}`);
  return target;
}

/** Creates or overwrites the file (and its parent directories); returns the previous text or null. */
export function writeFileInside(cwd: string, rel: string, text: string): { path: string; oldText: string | null; newText: string } {
  const path = resolveInside(cwd, rel);
  const oldText = existsSync(path) ? readFileSync(path, "utf8") : null;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return { path, oldText, newText: text };
}

/** Appends to the file, creating it (and its parents) when missing. */
export function appendFileInside(cwd: string, rel: string, text: string): { path: string; oldText: string | null; newText: string } {
  const path = resolveInside(cwd, rel);
  const oldText = existsSync(path) ? readFileSync(path, "utf8") : null;
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, text);
  return { path, oldText, newText: (oldText ?? "") + text };
}

/** Reads one text file inside the workspace; a missing file or a directory is an error. */
export function readFileInside(cwd: string, rel: string): { path: string; text: string } {
  const path = resolveInside(cwd, rel);
  if (!existsSync(path)) throw new Error(`no such file: ${rel}`);
  if (statSync(path).isDirectory()) throw new Error(`is a directory: ${rel}`);
  return { path, text: readFileSync(path, "utf8") };
}

/** Deletes one file; a missing file or a directory is an error. */
export function deleteFileInside(cwd: string, rel: string): { path: string; oldText: string } {
  const path = resolveInside(cwd, rel);
  if (!existsSync(path)) throw new Error(`no such file: ${rel}`);
  if (statSync(path).isDirectory()) throw new Error(`is a directory: ${rel}`);
  const oldText = readFileSync(path, "utf8");
  rmSync(path);
  return { path, oldText };
}

function git(dir: string, args: string[], env?: NodeJS.ProcessEnv): string {
  try {
    // argv, never a shell: the message is arbitrary text from the prompt.
    return execFileSync("git", args, { cwd: dir, env: env ?? process.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`git ${args[0]} failed in ${dir}: ${(err.stderr || err.stdout || err.message).trim()}`, { cause: e });
  }
}

/** Repositories a `commit` applies to: see {@link commitAll}. */
export function commitTargets(cwd: string): string[] {
  if (existsSync(join(cwd, ".git"))) return [cwd];
  const children = readdirSync(cwd, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(cwd, d.name, ".git")))
    .map((d) => join(cwd, d.name))
    .sort();
  if (children.length > 0) return children;
  return [git(cwd, ["rev-parse", "--show-toplevel"]).trim()];
}

/**
 * `git add -A && git commit -m <message>` in the repository holding cwd. Which repository:
 * cwd itself when it is a repository's top level; else, when cwd is a several-repository
 * workspace root (sub-directories with a `.git`), every one of those that has changes; else the
 * repository cwd lies in. Checking cwd's own `.git` and its children before asking git keeps a
 * workspace under a home directory that is itself a repository from committing there.
 * Nothing to commit anywhere is an error. A repository without a configured identity commits as
 * "Grove Scripted Agent".
 */
export function commitAll(cwd: string, message: string): { dir: string; commit: string }[] {
  const targets = commitTargets(cwd);
  const done: { dir: string; commit: string }[] = [];
  for (const dir of targets) {
    if (git(dir, ["status", "--porcelain"]).trim() === "") continue;
    git(dir, ["add", "-A"]);
    git(dir, ["-c", "commit.gpgsign=false", "commit", "-q", "-m", message], identityEnv(dir));
    done.push({ dir, commit: git(dir, ["rev-parse", "HEAD"]).trim() });
  }
  if (done.length === 0) throw new Error("nothing to commit");
  return done;
}

function identityEnv(dir: string): NodeJS.ProcessEnv {
  try {
    git(dir, ["config", "user.email"]);
    return process.env;
  } catch {
    const name = "Grove Scripted Agent";
    const email = "scripted-agent@grove.invalid";
    return { ...process.env, GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
  }
}
