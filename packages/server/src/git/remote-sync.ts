import { assertBranchName } from "../domain/layout.js";
import { credentialArgs, credentialPayload, type GitCredential } from "./credential-helper.js";
import { AppError } from "../domain/errors.js";
import type { GitResult, GitRunOptions } from "./run-options.js";
import type { GitRunner } from "./runner.js";

/**
 * How a clone or fetch reaches its host. `managed` (RR-2): isolated config, the server's
 * credential through the origin-bound helper. `executor` (RR-3): the host's own git config, ssh
 * keys and credential helpers, the origin as configured; only prompts are off (batch mode).
 */
export type RemoteAccess = { kind: "managed"; originUrl: string; credential: GitCredential } | { kind: "executor" };

function accessOptions(access: RemoteAccess): { args: string[]; opts: Partial<GitRunOptions> } {
  if (access.kind === "executor") return { args: [], opts: { network: true } };
  return {
    args: credentialArgs(access.originUrl, access.credential),
    opts: { network: true, isolatedConfig: true, fd3: credentialPayload(access.credential) },
  };
}

// Failures are taken as results so the whole stderr (ssh's "Permission denied" comes before git's
// last line) reaches remote-errors.ts for classification; it is never shown as is.
const FAILED = Array.from({ length: 255 }, (_, i) => i + 1);

function failIfNonZero(r: GitResult, sub: string): void {
  if (r.exitCode !== 0)
    throw new AppError("git_failed", `git ${sub} failed (exit ${r.exitCode}): ${r.stderr.replace(/\s+/g, " ").trim()}`, { args: [sub], exitCode: r.exitCode });
}

/** One progress line of `git clone --progress`, e.g. `Receiving objects:  42% (420/1000)`. */
export interface CloneProgress {
  phase: string;
  percent: number | null;
}

/** Parses git's carriage-return separated progress output. */
export function parseProgress(chunk: string): CloneProgress[] {
  const out: CloneProgress[] = [];
  for (const line of chunk.split(/[\r\n]+/)) {
    const m = /^(?:remote: )?([A-Za-z][A-Za-z ]+?):\s+(\d+)%/.exec(line.trim());
    if (m) out.push({ phase: m[1]!, percent: Number(m[2]) });
  }
  return out;
}

/**
 * `git clone` of `url` into `dest` (which must not exist; its parent must). The origin remote
 * is `url` exactly (credential-free by construction).
 */
export async function cloneRemote(
  git: GitRunner,
  input: { url: string; dest: string; cwd: string; access: RemoteAccess; timeoutMs: number; onProgress?: (p: CloneProgress) => void },
): Promise<void> {
  const { args, opts } = accessOptions(input.access);
  const r = await git.run([...args, "clone", "--progress", "--origin", "origin", "--", input.url, input.dest], {
    cwd: input.cwd,
    timeoutMs: input.timeoutMs,
    okExitCodes: FAILED,
    ...opts,
    ...(input.onProgress ? { onStderr: (c: string) => parseProgress(c).forEach((p) => input.onProgress?.(p)) } : {}),
  });
  failIfNonZero(r, "clone");
}

/**
 * RR-5/RR-6: one fetch from `origin` of the base branch into `refs/remotes/origin/<base>` and,
 * when given, the pull request's head ref into `refs/remotes/origin/pr/<N>` — one process, one
 * authenticated exchange.
 */
export async function fetchOrigin(
  git: GitRunner,
  input: { repoPath: string; baseBranch: string; pr?: { number: number; ref: string }; access: RemoteAccess; timeoutMs: number },
): Promise<void> {
  assertBranchName(input.baseBranch, "baseBranch");
  const refspecs = [`+refs/heads/${input.baseBranch}:refs/remotes/origin/${input.baseBranch}`];
  if (input.pr) {
    if (!Number.isInteger(input.pr.number) || input.pr.number <= 0 || !/^refs\/[A-Za-z0-9/_-]+$/.test(input.pr.ref))
      throw new Error("invalid pull request ref");
    refspecs.push(`+${input.pr.ref}:refs/remotes/origin/pr/${input.pr.number}`);
  }
  const { args, opts } = accessOptions(input.access);
  const r = await git.run([...args, "fetch", "--no-tags", "--no-write-fetch-head", "--", "origin", ...refspecs], {
    cwd: input.repoPath,
    timeoutMs: input.timeoutMs,
    okExitCodes: FAILED,
    ...opts,
  });
  failIfNonZero(r, "fetch");
}

/** `remote.origin.url` of a clone, or null. */
export async function originUrl(git: GitRunner, repoPath: string): Promise<string | null> {
  const r = await git.run(["config", "--get", "remote.origin.url"], { cwd: repoPath, okExitCodes: [1] });
  return r.exitCode === 0 ? r.stdout.trim() || null : null;
}

/** Whether the clone has `refs/remotes/origin/<branch>` (a remote repository's base need not be a local branch). */
export async function remoteBranchExists(git: GitRunner, repoPath: string, branch: string): Promise<boolean> {
  assertBranchName(branch, "baseBranch");
  const r = await git.run(["show-ref", "--verify", "--quiet", `refs/remotes/origin/${branch}`], { cwd: repoPath, okExitCodes: [1] });
  return r.exitCode === 0;
}
