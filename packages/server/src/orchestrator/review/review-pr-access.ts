import { AppError } from "../../domain/errors.js";
import type { RepositoryRecord } from "../../domain/records.js";
import { openSecret } from "../../git/credential-vault.js";
import type { RemoteAccess } from "../../git/remote-sync.js";
import type { CredentialInput } from "../../providers/provider.js";
import { pullRequestApi } from "../../providers/pull-request-registry.js";
import type { PullRequestApi, PullRequestTarget } from "../../providers/pull-requests.js";
import type { Deps } from "../context.js";
import { credentialKey } from "../refresh/remote-context.js";
import { isRemoteRepository } from "../refresh/refresh-remote.js";
import { remoteIdentity } from "../refresh/remote-repositories.js";

/** Everything a pull-request action needs for one repository: push route, API, token. */
export interface PrAccess {
  api: PullRequestApi;
  target: PullRequestTarget;
  /** How git pushes (the same managed/executor route as the refresh, RR-4). */
  push: RemoteAccess;
  /** `origin` (executor) or the provider's managed URL. */
  remote: string;
  /** The stored credential; it goes only into an Authorization header or git's fd 3. */
  credential: CredentialInput;
}

/**
 * Resolves a remote repository's pull-request access: its provider's PR API, the API base
 * (`apiUrl`, else the provider's public API), the push route and the stored credential (opened
 * here, in memory only). A local checkout or a provider without a PR API → 400
 * `pull_request_unsupported`; no stored credential → `provider_auth_failed`.
 */
export async function prAccess(deps: Pick<Deps, "store" | "home" | "remote">, repo: RepositoryRecord, scope: Record<string, string>): Promise<PrAccess> {
  const api = pullRequestApi(repo.provider);
  if (!isRemoteRepository(repo) || !api) {
    throw new AppError("pull_request_unsupported", `repository ${repo.name} (${repo.provider}) has no pull-request API; merge it locally instead`, scope);
  }
  const id = remoteIdentity(deps, repo.url ?? "", repo.provider);
  const sealed = await deps.store.getCredential(repo.id);
  if (!sealed) throw new AppError("provider_auth_failed", `repository ${repo.name} has no stored credential for its provider's API`, scope);
  const cred = JSON.parse(openSecret(credentialKey(deps), repo.id, sealed)) as { token: string; username: string | null };
  const credential: CredentialInput = { token: cred.token, username: cred.username ?? undefined };
  const push: RemoteAccess =
    repo.credentialPolicy === "managed"
      ? { kind: "managed", originUrl: id.managedUrl, credential: id.provider.credentialForm(credential) }
      : { kind: "executor" };
  return {
    api,
    target: { apiUrl: repo.apiUrl ?? api.defaultApiUrl(id.url), loc: id.loc, url: id.url },
    push,
    remote: push.kind === "managed" ? id.managedUrl : "origin",
    credential,
  };
}
