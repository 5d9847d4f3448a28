import { AppError } from "../domain/errors.js";
import { assertBranchName } from "../domain/layout.js";
import { classifyRemoteFailure } from "./remote-errors.js";
import type { RemoteAccess } from "./remote-sync.js";
import { credentialArgs, credentialPayload } from "./credential-helper.js";
import type { GitRunner } from "./runner.js";
import type { GitCwd } from "./worktree-link.js";

const ANY_FAILURE = Array.from({ length: 255 }, (_, i) => i + 1);

/**
 * Pushes `branch` to the same branch on the host through the repository's route (RR-2: the
 * managed credential only on fd 3 through the origin-bound helper; executor: the host's own
 * setup). Never forces. With `lease` (after a rebase), `--force-with-lease` against exactly that
 * commit — the host's branch after Grove's last push — so anyone else's push is never
 * overwritten. A refused push → `push_rejected`; other failures → the typed RR-7 codes, with
 * Grove's own wording (git's stderr may echo a URL).
 */
export async function pushBranch(
  git: GitRunner,
  input: {
    cwd: GitCwd;
    branch: string;
    access: RemoteAccess;
    remote: string;
    lease?: string;
    timeoutMs: number;
    scope: Record<string, string>;
    repository: string;
  },
): Promise<void> {
  assertBranchName(input.branch, "branch");
  const ref = `refs/heads/${input.branch}`;
  const lease = input.lease && /^[0-9a-f]{40,64}$/.test(input.lease) ? [`--force-with-lease=${ref}:${input.lease}`] : [];
  const access = input.access;
  const args = access.kind === "managed" ? credentialArgs(access.originUrl, access.credential) : [];
  const r = await git.run([...args, "push", "--porcelain", "--no-verify", ...lease, "--", input.remote, `${ref}:${ref}`], {
    cwd: input.cwd,
    timeoutMs: input.timeoutMs,
    okExitCodes: ANY_FAILURE,
    network: true,
    ...(access.kind === "managed" ? { isolatedConfig: true, fd3: credentialPayload(access.credential) } : {}),
  });
  if (r.exitCode === 0) return;
  const text = `${r.stdout}\n${r.stderr}`;
  if (/\[rejected\]|\[remote rejected\]|stale info|non-fast-forward|fetch first/i.test(text)) {
    throw new AppError(
      "push_rejected",
      `the host refused the push of ${input.branch} to repository ${input.repository}: its branch moved since Grove's last push; nothing was forced`,
      input.scope,
    );
  }
  const { code, reason } = classifyRemoteFailure(new Error(text));
  throw new AppError(code, `push of repository ${input.repository} failed: ${reason}`, input.scope);
}
