import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake pull-request REST API on 127.0.0.1 with GitHub, GitLab or Azure DevOps shapes, for the
 * pull-request tests (RV-5). It checks the credential in the provider's form (GitHub/GitLab bearer, Azure
 * DevOps basic with the PAT as password), answers ETags and 304s, and can be told to fail.
 */
export type FakeKind = "github" | "gitlab" | "azure-devops";
export type FakeMode = "ok" | "401" | "404" | "422" | "429";

export interface FakeCheck {
  name: string;
  state: "pending" | "success" | "failure";
  summary: string;
}

export interface FakePr {
  number: number;
  title: string;
  body: string;
  draft: boolean;
  head: string;
  base: string;
  state: "open" | "merged" | "closed";
  sha: string;
}

/** A provider issue (GitHub issue, GitLab issue with `iid`); comments are their bodies, oldest first. */
export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  state: "open" | "closed";
  comments: string[];
}

export interface FakeProvider {
  url: string;
  /** The apiUrl a repository registers with. */
  apiUrl: string;
  prs: FakePr[];
  checks: FakeCheck[];
  /** Review comments on lines; `id` defaults to the position + 1 (the provider's comment id). */
  comments: { id?: number; path: string; line: number; body: string; resolved: boolean }[];
  /** GitHub/GitLab issues: listed by label, commented on, closed. */
  issues: FakeIssue[];
  approved: boolean;
  mode: FakeMode;
  /** Requests seen: method, path, whether the credential matched, status answered. */
  seen: { method: string; path: string; authorized: boolean; status: number }[];
  close(): Promise<void>;
}

function authorized(kind: FakeKind, req: IncomingMessage, token: string): boolean {
  const h = req.headers.authorization ?? "";
  if (kind === "azure-devops") {
    if (!h.startsWith("Basic ")) return false;
    const [, pass] = Buffer.from(h.slice(6), "base64").toString("utf8").split(":");
    return pass === token;
  }
  return h === `Bearer ${token}`;
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}

export async function startFakeProvider(kind: FakeKind, token: string, web: string): Promise<FakeProvider> {
  const f: Omit<FakeProvider, "url" | "apiUrl" | "close"> = { prs: [], checks: [], comments: [], issues: [], approved: false, mode: "ok", seen: [] };
  const ghCheck = (c: FakeCheck) => ({
    name: c.name,
    status: c.state === "pending" ? "in_progress" : "completed",
    conclusion: c.state === "pending" ? null : c.state,
    output: { title: c.name, summary: c.summary },
  });
  const view = (pr: FakePr): unknown => {
    if (kind === "github")
      return {
        number: pr.number,
        html_url: `${web}/pull/${pr.number}`,
        state: pr.state === "open" ? "open" : "closed",
        merged: pr.state === "merged",
        draft: pr.draft,
        head: { sha: pr.sha },
      };
    if (kind === "gitlab") {
      const failed = f.checks.some((c) => c.state === "failure");
      const pending = f.checks.some((c) => c.state === "pending");
      const status = f.checks.length === 0 ? undefined : failed ? "failed" : pending ? "running" : "success";
      return {
        iid: pr.number,
        web_url: `${web}/-/merge_requests/${pr.number}`,
        state: pr.state === "open" ? "opened" : pr.state,
        draft: pr.draft,
        sha: pr.sha,
        head_pipeline: status ? { id: 7, status } : null,
      };
    }
    return {
      pullRequestId: pr.number,
      status: pr.state === "open" ? "active" : pr.state === "merged" ? "completed" : "abandoned",
      isDraft: pr.draft,
      lastMergeSourceCommit: { commitId: pr.sha },
      reviewers: f.approved ? [{ vote: 10 }] : [],
    };
  };
  const issueView = (i: FakeIssue): unknown =>
    kind === "github"
      ? { number: i.number, title: i.title, body: i.body, html_url: `${web}/issues/${i.number}`, state: i.state, labels: i.labels.map((name) => ({ name })) }
      : {
          iid: i.number,
          title: i.title,
          description: i.body,
          web_url: `${web}/-/issues/${i.number}`,
          state: i.state === "open" ? "opened" : "closed",
          labels: i.labels,
        };
  /** The issues routes of GitHub (`/issues`, `/issues/N/comments`, PATCH) and GitLab (`/issues`, `/issues/N/notes`, PUT). */
  const issueRoute = async (req: IncomingMessage, path: string, query: URLSearchParams): Promise<[number, unknown] | undefined> => {
    const m = req.method ?? "GET";
    if (m === "GET" && /\/issues$/.test(path)) {
      const open = kind === "github" ? "open" : "opened";
      if (query.get("state") !== open) return [422, { message: "the fake lists open issues only" }];
      const label = query.get("labels") ?? "";
      // GitHub lists pull requests as issues too (with `pull_request`); the fake lists one to be left out.
      const prAsIssue =
        kind === "github"
          ? [{ number: 999, title: "a pull request", body: "", html_url: `${web}/pull/999`, state: "open", labels: [{ name: label }], pull_request: {} }]
          : [];
      return [200, [...f.issues.filter((i) => i.state === "open" && i.labels.includes(label)).map(issueView), ...prAsIssue]];
    }
    const n = /\/issues\/(\d+)(\/(comments|notes))?$/.exec(path);
    if (!n) return undefined;
    const issue = f.issues.find((i) => i.number === Number(n[1]));
    if (!issue) return [404, { message: "Not Found" }];
    if (n[3]) {
      if (m === "POST") {
        const b = await readJson(req);
        issue.comments.push(String(b.body));
        return [201, { id: issue.comments.length, body: b.body }];
      }
      return [200, issue.comments.map((body, i) => ({ id: i + 1, body }))];
    }
    if ((kind === "github" && m === "PATCH") || (kind === "gitlab" && m === "PUT")) {
      const b = await readJson(req);
      if (kind === "github" ? b.state === "closed" : b.state_event === "close") issue.state = "closed";
      return [200, issueView(issue)];
    }
    return [200, issueView(issue)];
  };
  const route = async (req: IncomingMessage, path: string, query: URLSearchParams): Promise<[number, unknown]> => {
    const m = req.method ?? "GET";
    const issueAnswer = kind === "azure-devops" ? undefined : await issueRoute(req, path, query);
    if (issueAnswer) return issueAnswer;
    if (m === "GET" && /\/(pulls|merge_requests|pullrequests)$/.test(path)) {
      // The open pull requests from one branch into another, in each provider's query form.
      const head =
        kind === "github"
          ? query.get("head")?.split(":").slice(1).join(":")
          : kind === "gitlab"
            ? query.get("source_branch")
            : query.get("searchCriteria.sourceRefName")?.replace("refs/heads/", "");
      const base =
        kind === "github"
          ? query.get("base")
          : kind === "gitlab"
            ? query.get("target_branch")
            : query.get("searchCriteria.targetRefName")?.replace("refs/heads/", "");
      const open = f.prs.filter((x) => x.state === "open" && x.head === head && x.base === base).map(view);
      return [200, kind === "azure-devops" ? { value: open, count: open.length } : open];
    }
    const pr = () => f.prs.find((p) => p.number === Number(/(?:pulls|merge_requests|pullrequests)\/(\d+)/.exec(path)?.[1]));
    if (m === "POST" && /\/(pulls|merge_requests|pullrequests)$/.test(path)) {
      const b = await readJson(req);
      const n = f.prs.length + 1;
      const created: FakePr =
        kind === "github"
          ? { number: n, title: b.title, body: b.body, draft: b.draft === true, head: b.head, base: b.base, state: "open", sha: "" }
          : kind === "gitlab"
            ? {
                number: n,
                title: String(b.title).replace(/^Draft: /, ""),
                body: b.description,
                draft: String(b.title).startsWith("Draft: "),
                head: b.source_branch,
                base: b.target_branch,
                state: "open",
                sha: "",
              }
            : {
                number: n,
                title: b.title,
                body: b.description,
                draft: b.isDraft === true,
                head: String(b.sourceRefName).replace("refs/heads/", ""),
                base: String(b.targetRefName).replace("refs/heads/", ""),
                state: "open",
                sha: "",
              };
      f.prs.push(created);
      return [201, view(created)];
    }
    if (/check-runs$/.test(path)) return [200, { total_count: f.checks.length, check_runs: f.checks.map(ghCheck) }];
    const p = pr();
    if (!p) return [404, { message: "Not Found" }];
    if (/\/reviews$/.test(path)) return [200, f.approved ? [{ state: "APPROVED" }] : []];
    if (/pulls\/\d+\/comments$/.test(path))
      return [200, f.comments.map((c, i) => ({ id: c.id ?? i + 1, path: c.path, line: c.line, body: c.body, user: { login: "reviewer" } }))];
    if (/\/approvals$/.test(path)) return [200, { approved: f.approved }];
    if (/merge_requests\/\d+\/pipelines$/.test(path))
      return [
        200,
        f.checks.some((c) => c.state === "failure")
          ? [
              {
                id: 7,
                status: "failed",
                detailed_status: f.checks
                  .filter((c) => c.state === "failure")
                  .map((c) => `${c.name}: ${c.summary}`)
                  .join("; "),
              },
            ]
          : [],
      ];
    if (/\/discussions$/.test(path))
      return [
        200,
        f.comments.map((c, i) => ({
          notes: [
            {
              id: c.id ?? i + 1,
              body: c.body,
              resolvable: true,
              resolved: c.resolved,
              position: { new_path: c.path, new_line: c.line },
              author: { username: "reviewer" },
            },
          ],
        })),
      ];
    if (/\/statuses$/.test(path))
      return [
        200,
        {
          value: f.checks.map((c) => ({
            state: c.state === "success" ? "succeeded" : c.state === "failure" ? "failed" : "pending",
            context: { name: c.name },
            description: c.summary,
          })),
        },
      ];
    if (/\/threads$/.test(path))
      return [
        200,
        {
          value: f.comments.map((c, i) => ({
            id: c.id ?? i + 1,
            status: c.resolved ? "fixed" : "active",
            threadContext: { filePath: `/${c.path}`, rightFileStart: { line: c.line } },
            comments: [{ id: 1, content: c.body, author: { displayName: "reviewer" } }],
          })),
        },
      ];
    return [200, view(p)];
  };
  const server: Server = createServer((req, res) => {
    const parsed = new URL(req.url ?? "/", "http://x");
    const path = parsed.pathname;
    const ok = authorized(kind, req, token);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      f.seen.push({ method: req.method ?? "GET", path, authorized: ok, status });
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(body === undefined ? "" : JSON.stringify(body));
    };
    if (f.mode === "429")
      return send(429, { message: "rate limited" }, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 60) });
    if (!ok || f.mode === "401") return send(401, { message: "Bad credentials" });
    if (f.mode === "404") return send(404, { message: "Not Found" });
    if (f.mode === "422" && req.method === "POST") return send(422, { message: "A pull request already exists" });
    route(req, path, parsed.searchParams).then(
      ([status, body]) => {
        const etag = `"${createHash("sha1").update(JSON.stringify(body)).digest("hex")}"`;
        if (req.method === "GET" && status === 200 && req.headers["if-none-match"] === etag) return send(304, undefined, { etag });
        send(status, body, { etag, "x-ratelimit-remaining": "4000", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600) });
      },
      () => send(500, { message: "fake failed" }),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(f, {
    url,
    apiUrl: kind === "gitlab" ? `${url}/api/v4` : url,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  }) as FakeProvider;
}
