import { arr, obj, str, type ApiRequest, type PullRequestTarget } from "./pull-requests.js";

/**
 * WF-2: a provider's issues REST API as pure computation (requests and how to read the
 * answers), beside its pull-request API: the same target (API base, owner/name) and the same
 * credential. The orchestrator executes the requests (review-pr-http.ts `callProvider`).
 */
export interface ProviderIssue {
  number: number;
  title: string;
  body: string;
  url: string;
}

export interface IssueApi {
  /** The open issues carrying `label`. */
  listRequest(t: PullRequestTarget, label: string): ApiRequest;
  parseList(json: unknown): ProviderIssue[];
  /** The issue's comments, read before commenting so a redo never comments twice. */
  commentsRequest(t: PullRequestTarget, number: number): ApiRequest;
  parseComments(json: unknown): string[];
  commentRequest(t: PullRequestTarget, number: number, body: string): ApiRequest;
  closeRequest(t: PullRequestTarget, number: number): ApiRequest;
}

const ghRepo = (t: PullRequestTarget) => `${t.apiUrl}/repos/${encodeURIComponent(t.loc.owner)}/${encodeURIComponent(t.loc.name)}`;
const glProject = (t: PullRequestTarget) => `${t.apiUrl}/projects/${encodeURIComponent(`${t.loc.owner}/${t.loc.name}`)}`;

/** GitHub REST v3 issues; the list also returns pull requests (they carry `pull_request`), which are left out. */
export const githubIssues: IssueApi = {
  listRequest: (t, label) => ({ method: "GET", url: `${ghRepo(t)}/issues?state=open&per_page=100&labels=${encodeURIComponent(label)}` }),
  parseList: (json) =>
    arr(json)
      .map(obj)
      .filter((i) => i.pull_request === undefined)
      .map((i) => ({ number: Number(i.number), title: str(i.title), body: str(i.body), url: str(i.html_url) })),
  commentsRequest: (t, n) => ({ method: "GET", url: `${ghRepo(t)}/issues/${n}/comments?per_page=100` }),
  parseComments: (json) => arr(json).map((c) => str(obj(c).body)),
  commentRequest: (t, n, body) => ({ method: "POST", url: `${ghRepo(t)}/issues/${n}/comments`, body: { body } }),
  closeRequest: (t, n) => ({ method: "PATCH", url: `${ghRepo(t)}/issues/${n}`, body: { state: "closed" } }),
};

/** GitLab REST v4 issues (the number is the project's `iid`), notes as comments. */
export const gitlabIssues: IssueApi = {
  listRequest: (t, label) => ({ method: "GET", url: `${glProject(t)}/issues?state=opened&per_page=100&labels=${encodeURIComponent(label)}` }),
  parseList: (json) =>
    arr(json)
      .map(obj)
      .map((i) => ({ number: Number(i.iid), title: str(i.title), body: str(i.description), url: str(i.web_url) })),
  commentsRequest: (t, n) => ({ method: "GET", url: `${glProject(t)}/issues/${n}/notes?per_page=100` }),
  parseComments: (json) => arr(json).map((c) => str(obj(c).body)),
  commentRequest: (t, n, body) => ({ method: "POST", url: `${glProject(t)}/issues/${n}/notes`, body: { body } }),
  closeRequest: (t, n) => ({ method: "PUT", url: `${glProject(t)}/issues/${n}`, body: { state_event: "close" } }),
};

const apis = new Map<string, IssueApi>([
  ["github", githubIssues],
  ["gitlab", gitlabIssues],
]);

/** The issues API of a provider id, or undefined (no issues trigger for that provider). */
export function issueApi(providerId: string): IssueApi | undefined {
  return apis.get(providerId);
}
