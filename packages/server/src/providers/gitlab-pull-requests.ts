import { httpBase } from "./provider.js";
import { arr, obj, str, type PullRequestApi, type PullRequestStatus, type PullRequestTarget } from "./pull-requests.js";

const project = (t: PullRequestTarget) => `${t.apiUrl}/projects/${encodeURIComponent(`${t.loc.owner}/${t.loc.name}`)}`;

function checksOf(pipeline: Record<string, unknown>): PullRequestStatus["checks"] {
  const s = str(pipeline.status);
  if (!s) return "none";
  if (s === "success") return "success";
  if (s === "failed" || s === "canceled") return "failure";
  return "pending";
}

/** GitLab REST v4 merge requests: bearer token; draft is GitLab's `Draft:` title prefix. */
export const gitlabPullRequests: PullRequestApi = {
  defaultApiUrl: (url) => `${url.host === "gitlab.com" ? "https://gitlab.com" : httpBase(url)}/api/v4`,
  authorization: (c) => `Bearer ${c.token}`,
  createRequest: (t, i) => ({
    method: "POST",
    url: `${project(t)}/merge_requests`,
    body: { source_branch: i.head, target_branch: i.base, title: i.draft ? `Draft: ${i.title}` : i.title, description: i.body },
  }),
  parseCreated: (_t, json) => {
    const j = obj(json);
    return { number: Number(j.iid), url: str(j.web_url), state: "open", draft: j.draft === true, headCommit: str(j.sha) };
  },
  findOpenRequest: (t, i) => ({
    method: "GET",
    url: `${project(t)}/merge_requests?state=opened&source_branch=${encodeURIComponent(i.head)}&target_branch=${encodeURIComponent(i.base)}`,
  }),
  parseFound: (t, json) => {
    const first = arr(json)[0];
    return first === undefined ? null : gitlabPullRequests.parseCreated(t, first);
  },
  statusRequests: (t, n) => [
    { method: "GET", url: `${project(t)}/merge_requests/${n}` },
    { method: "GET", url: `${project(t)}/merge_requests/${n}/approvals` },
  ],
  parseStatus: (_t, n, [mr, approvals]) => {
    const m = obj(mr);
    const state = str(m.state);
    return {
      number: n,
      url: str(m.web_url),
      state: state === "merged" ? "merged" : state === "closed" ? "closed" : "open",
      draft: m.draft === true,
      checks: checksOf(obj(m.head_pipeline)),
      reviewDecision: obj(approvals).approved === true ? "approved" : null,
      headCommit: str(m.sha),
    };
  },
  feedbackRequests: (t, n) => [
    { method: "GET", url: `${project(t)}/merge_requests/${n}/pipelines` },
    { method: "GET", url: `${project(t)}/merge_requests/${n}/discussions` },
  ],
  parseFeedback: ([pipelines, discussions]) => ({
    failedChecks: arr(pipelines)
      .map(obj)
      .filter((p) => str(p.status) === "failed")
      .slice(0, 1)
      .map((p) => ({ name: `pipeline ${str(p.id)}`, summary: str(p.detailed_status) || "failed" })),
    comments: arr(discussions)
      .flatMap((d) => arr(obj(d).notes))
      .map(obj)
      .filter((n) => n.resolvable === true && n.resolved !== true)
      .map((n) => ({
        id: str(n.id) || null,
        path: str(obj(n.position).new_path) || null,
        line: typeof obj(n.position).new_line === "number" ? (obj(n.position).new_line as number) : null,
        author: str(obj(n.author).username) || null,
        body: str(n.body),
      })),
  }),
};
