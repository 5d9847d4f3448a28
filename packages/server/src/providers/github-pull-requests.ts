import { httpBase } from "./provider.js";
import { arr, obj, str, type PullRequestApi, type PullRequestStatus, type PullRequestTarget } from "./pull-requests.js";

const repoBase = (t: PullRequestTarget) => `${t.apiUrl}/repos/${encodeURIComponent(t.loc.owner)}/${encodeURIComponent(t.loc.name)}`;

function checksOf(runs: unknown[]): PullRequestStatus["checks"] {
  if (runs.length === 0) return "none";
  const r = runs.map(obj);
  if (r.some((c) => c.status === "completed" && !["success", "neutral", "skipped"].includes(str(c.conclusion)))) return "failure";
  if (r.some((c) => c.status !== "completed")) return "pending";
  return "success";
}

/** GitHub REST v3: bearer token; `POST /repos/{owner}/{repo}/pulls`, check runs, reviews. */
export const githubPullRequests: PullRequestApi = {
  defaultApiUrl: (url) => (url.host === "github.com" ? "https://api.github.com" : `${httpBase(url)}/api/v3`),
  authorization: (c) => `Bearer ${c.token}`,
  createRequest: (t, i) => ({
    method: "POST",
    url: `${repoBase(t)}/pulls`,
    body: { title: i.title, body: i.body, head: i.head, base: i.base, draft: i.draft },
  }),
  parseCreated: (_t, json) => {
    const j = obj(json);
    return { number: Number(j.number), url: str(j.html_url), state: "open", draft: j.draft === true, headCommit: str(obj(j.head).sha) };
  },
  findOpenRequest: (t, i) => ({
    method: "GET",
    url: `${repoBase(t)}/pulls?state=open&head=${encodeURIComponent(`${t.loc.owner}:${i.head}`)}&base=${encodeURIComponent(i.base)}`,
  }),
  parseFound: (t, json) => {
    const first = arr(json)[0];
    return first === undefined ? null : githubPullRequests.parseCreated(t, first);
  },
  statusRequests: (t, n, head) => [
    { method: "GET", url: `${repoBase(t)}/pulls/${n}` },
    { method: "GET", url: `${repoBase(t)}/commits/${head}/check-runs` },
    { method: "GET", url: `${repoBase(t)}/pulls/${n}/reviews` },
  ],
  parseStatus: (_t, n, [pr, runs, reviews]) => {
    const p = obj(pr);
    const decisive = arr(reviews)
      .map(obj)
      .map((r) => str(r.state))
      .filter((s) => s === "APPROVED" || s === "CHANGES_REQUESTED");
    return {
      number: n,
      url: str(p.html_url),
      state: p.merged === true || p.merged_at ? "merged" : p.state === "closed" ? "closed" : "open",
      draft: p.draft === true,
      checks: checksOf(arr(obj(runs).check_runs)),
      reviewDecision: decisive.length > 0 ? decisive[decisive.length - 1]!.toLowerCase() : null,
      headCommit: str(obj(p.head).sha),
    };
  },
  feedbackRequests: (t, n, head) => [
    { method: "GET", url: `${repoBase(t)}/commits/${head}/check-runs` },
    { method: "GET", url: `${repoBase(t)}/pulls/${n}/comments` },
  ],
  parseFeedback: ([runs, comments]) => ({
    failedChecks: arr(obj(runs).check_runs)
      .map(obj)
      .filter((c) => c.status === "completed" && !["success", "neutral", "skipped"].includes(str(c.conclusion)))
      .map((c) => ({ name: str(c.name), summary: [str(obj(c.output).title), str(obj(c.output).summary)].filter(Boolean).join(": ") })),
    // The REST API does not say whether a thread is resolved; every review comment is sent.
    comments: arr(comments)
      .map(obj)
      .map((c) => ({
        id: str(c.id) || null,
        path: str(c.path) || null,
        line: typeof c.line === "number" ? c.line : null,
        author: str(obj(c.user).login) || null,
        body: str(c.body),
      })),
  }),
};
