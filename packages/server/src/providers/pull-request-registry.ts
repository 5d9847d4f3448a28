import { azureDevopsPullRequests } from "./azure-devops-pull-requests.js";
import { githubPullRequests } from "./github-pull-requests.js";
import { gitlabPullRequests } from "./gitlab-pull-requests.js";
import type { PullRequestApi } from "./pull-requests.js";

const apis = new Map<string, PullRequestApi>([
  ["github", githubPullRequests],
  ["gitlab", gitlabPullRequests],
  ["azure-devops", azureDevopsPullRequests],
]);

/** The pull-request API of a provider id, or undefined (e.g. a plugin that has none). */
export function pullRequestApi(providerId: string): PullRequestApi | undefined {
  return apis.get(providerId);
}

/** RR-8 extension point: a provider plugin registers its pull-request API under its id. */
export function registerPullRequestApi(providerId: string, api: PullRequestApi): void {
  if (apis.has(providerId)) throw new Error(`pull-request API of ${providerId} is registered twice`);
  apis.set(providerId, api);
}
