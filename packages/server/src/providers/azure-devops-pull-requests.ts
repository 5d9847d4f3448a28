import { httpBase } from "./provider.js";
import { arr, obj, str, type PullRequestApi, type PullRequestStatus, type PullRequestTarget } from "./pull-requests.js";

const V = "api-version=7.1";
const repoApi = (t: PullRequestTarget) =>
  `${t.apiUrl}/${t.loc.owner.split("/").map(encodeURIComponent).join("/")}/_apis/git/repositories/${encodeURIComponent(t.loc.name)}`;
const webUrl = (t: PullRequestTarget, n: number) => `${httpBase(t.url)}/${t.loc.owner}/_git/${t.loc.name}/pullrequest/${n}`;

function checksOf(statuses: unknown[]): PullRequestStatus["checks"] {
  const s = statuses.map(obj).map((x) => str(x.state));
  if (s.length === 0) return "none";
  if (s.some((x) => x === "failed" || x === "error")) return "failure";
  if (s.some((x) => x !== "succeeded" && x !== "notApplicable")) return "pending";
  return "success";
}

/** Azure DevOps Git pull requests: PAT as basic auth; votes 10/5 approve, -10 reject, -5 wait. */
export const azureDevopsPullRequests: PullRequestApi = {
  defaultApiUrl: (url) => httpBase(url),
  authorization: (c) => `Basic ${Buffer.from(`${c.username ?? ""}:${c.token}`).toString("base64")}`,
  createRequest: (t, i) => ({
    method: "POST",
    url: `${repoApi(t)}/pullrequests?${V}`,
    body: { sourceRefName: `refs/heads/${i.head}`, targetRefName: `refs/heads/${i.base}`, title: i.title, description: i.body, isDraft: i.draft },
  }),
  parseCreated: (t, json) => {
    const j = obj(json);
    const n = Number(j.pullRequestId);
    return { number: n, url: webUrl(t, n), state: "open", draft: j.isDraft === true, headCommit: str(obj(j.lastMergeSourceCommit).commitId) };
  },
  findOpenRequest: (t, i) => ({
    method: "GET",
    url: `${repoApi(t)}/pullrequests?searchCriteria.status=active&searchCriteria.sourceRefName=${encodeURIComponent(`refs/heads/${i.head}`)}&searchCriteria.targetRefName=${encodeURIComponent(`refs/heads/${i.base}`)}&${V}`,
  }),
  parseFound: (t, json) => {
    const first = arr(obj(json).value)[0];
    return first === undefined ? null : azureDevopsPullRequests.parseCreated(t, first);
  },
  statusRequests: (t, n) => [
    { method: "GET", url: `${repoApi(t)}/pullrequests/${n}?${V}` },
    { method: "GET", url: `${repoApi(t)}/pullrequests/${n}/statuses?${V}` },
  ],
  parseStatus: (t, n, [pr, statuses]) => {
    const p = obj(pr);
    const votes = arr(p.reviewers)
      .map(obj)
      .map((r) => Number(r.vote));
    const status = str(p.status);
    return {
      number: n,
      url: webUrl(t, n),
      state: status === "completed" ? "merged" : status === "abandoned" ? "closed" : "open",
      draft: p.isDraft === true,
      checks: checksOf(arr(obj(statuses).value)),
      reviewDecision: votes.some((v) => v <= -10) ? "changes_requested" : votes.some((v) => v >= 5) ? "approved" : null,
      headCommit: str(obj(p.lastMergeSourceCommit).commitId),
    };
  },
  feedbackRequests: (t, n) => [
    { method: "GET", url: `${repoApi(t)}/pullrequests/${n}/statuses?${V}` },
    { method: "GET", url: `${repoApi(t)}/pullrequests/${n}/threads?${V}` },
  ],
  parseFeedback: ([statuses, threads]) => ({
    failedChecks: arr(obj(statuses).value)
      .map(obj)
      .filter((s) => str(s.state) === "failed" || str(s.state) === "error")
      .map((s) => ({ name: str(obj(s.context).name), summary: str(s.description) })),
    comments: arr(obj(threads).value)
      .map(obj)
      .filter((th) => str(th.status) === "active")
      .flatMap((th) =>
        arr(th.comments)
          .map(obj)
          .map((c) => ({
            id: str(th.id) && str(c.id) ? `${str(th.id)}/${str(c.id)}` : null,
            path: str(obj(th.threadContext).filePath).replace(/^\//, "") || null,
            line: typeof obj(obj(th.threadContext).rightFileStart).line === "number" ? (obj(obj(th.threadContext).rightFileStart).line as number) : null,
            author: str(obj(c.author).displayName) || null,
            body: str(c.content),
          })),
      ),
  }),
};
