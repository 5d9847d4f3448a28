import type { AgentProfile, Message, Session, Task } from "@grove/protocol";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { keys } from "../api/keys.js";
import { Environment } from "./Environment.js";
import { SessionPanel } from "./SessionPanel.js";
import { Sessions } from "./Sessions.js";

/** A render before any read answered (a fresh cache), or with `seed` putting answers in it. */
function render(el: ReactElement, seed: (qc: QueryClient) => void = () => {}): string {
  // retryOnMount off: a failed read stays failed when rendered, as it does in the page between retries.
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, retryOnMount: false } } });
  seed(qc);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client: qc }, el));
}

/** A read that failed: the query's state as react-query leaves it after a rejected fetch. */
function failed(qc: QueryClient, queryKey: readonly unknown[]): void {
  qc.getQueryCache()
    .build(qc, { queryKey })
    .setState({ status: "error", error: new Error("connection refused"), fetchStatus: "idle" });
}

const task = {
  id: "task_1",
  title: "Fix it",
  description: "",
  state: "in_progress",
  repositories: [{ repositoryId: "repo_1", baseBranch: "main", position: 0 }],
  archivedAt: null,
  runnerId: null,
} as unknown as Task;

const session = {
  id: "ses_1",
  taskId: "task_1",
  agent: "scripted",
  state: "idle",
  sandbox: "confined",
  blockedConnections: 0,
  queued: [],
  createdAt: "2026-12-04T07:00:00.000Z",
  updatedAt: "2026-12-04T07:00:00.000Z",
} as unknown as Session;

const sessions = (taskId = "task_1") => createElement(Sessions, { taskId, task, readOnly: false });
const environment = () =>
  createElement(Environment, { task, known: true, changes: undefined, repoName: () => "demo", onRestore: () => {}, restoring: false, restoreError: null });

describe("WEB-8.1 the task page says what is still loading instead of showing blanks or untrue empties", () => {
  it("WEB-8.1: before the sessions list answers it says so, not 'No sessions yet' (which may be false)", () => {
    const html = render(sessions());
    expect(html).toContain("Loading sessions…");
    expect(html).not.toContain("No sessions yet.");
  });

  it("WEB-8.1: an answered empty list says there are none; a failed one shows its error, never a loading line", () => {
    const empty = render(sessions(), (qc) => qc.setQueryData(keys.sessions("task_1"), []));
    expect(empty).toContain("No sessions yet.");
    expect(empty).not.toContain("Loading sessions…");
    const broken = render(sessions(), (qc) => failed(qc, keys.sessions("task_1")));
    expect(broken).toContain("Could not load sessions");
    expect(broken).not.toContain("Loading sessions…");
    expect(broken).not.toContain("No sessions yet.");
  });

  it("WEB-8.1: the New session agent picker says it is loading the agents, then lists them", () => {
    expect(render(sessions())).toContain("Loading agents…");
    const agents = [{ name: "scripted", builtIn: true, available: true }] as unknown as AgentProfile[];
    const loaded = render(sessions(), (qc) => qc.setQueryData(keys.agents, agents));
    expect(loaded).not.toContain("Loading agents…");
    expect(loaded).toMatch(/<option value="scripted"[^>]*>scripted<\/option>/);
    expect(render(sessions(), (qc) => failed(qc, keys.agents))).not.toContain("Loading agents…");
  });

  it("WEB-8.1: a session's conversation says it is loading until its messages answer", () => {
    const panel = () => createElement(SessionPanel, { session, readOnly: false });
    expect(render(panel())).toContain("Loading the conversation…");
    const msg = { id: "msg_1", sessionId: "ses_1", role: "user", text: "hello there", createdAt: session.createdAt } as unknown as Message;
    const answered = render(panel(), (qc) => qc.setQueryData(keys.messages("ses_1"), [msg]));
    expect(answered).not.toContain("Loading the conversation…");
    expect(answered).toContain("hello there");
    expect(render(panel(), (qc) => failed(qc, keys.messages("ses_1")))).not.toContain("Loading the conversation…");
  });

  it("WEB-8.1: the Environment section says it is loading once the worktrees exist, not nothing", () => {
    const html = render(environment());
    expect(html).toContain("Loading the environment…");
    const broken = render(environment(), (qc) => failed(qc, keys.environment("task_1")));
    expect(broken).not.toContain("Loading the environment…");
    expect(broken).toContain("Could not load the environment");
  });
});
