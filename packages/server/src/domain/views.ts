import type { Environment, EnvironmentRepository, Message, Repository, Session, Task } from "@grove/protocol";
import { modelsOf, type AgentState } from "./agent-state.js";
import type { EnvironmentRecord, EnvironmentRepoRecord, MessageRecord, RepositoryRecord, SessionRecord, TaskRecord } from "./records.js";

/** Records → the public shapes of `@grove/protocol` (pure; shared by routes and events). */

export function repositoryView(r: RepositoryRecord): Repository {
  return {
    id: r.id,
    name: r.name,
    path: r.path,
    ...(r.url ? { url: r.url } : {}),
    ...(r.apiUrl ? { apiUrl: r.apiUrl } : {}),
    provider: r.provider,
    defaultBranch: r.defaultBranch,
    pullBeforeWorktree: r.pullBeforeWorktree,
    credentialPolicy: r.credentialPolicy,
    hasCredential: r.hasCredential,
    branchTemplate: r.branchTemplate,
    copyFiles: r.copyFiles,
    sparseCheckout: r.sparseCheckout ?? [],
    setupScript: r.setupScript,
    createdAt: r.createdAt,
  };
}

export function taskView(t: TaskRecord): Task {
  return {
    id: t.id,
    title: t.title,
    description: t.description,
    state: t.state,
    archivedAt: t.archivedAt,
    ...(t.deletedAt ? { deletedAt: t.deletedAt } : {}),
    ...(t.parentId ? { parentId: t.parentId } : {}),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    repositories: t.repositories.map((a) => ({
      repositoryId: a.repositoryId,
      baseBranch: a.baseBranch,
      ...(a.checkoutBranch !== null ? { checkoutBranch: a.checkoutBranch } : {}),
      ...(a.prNumber !== null ? { prNumber: a.prNumber } : {}),
      position: a.position,
    })),
    ...(t.budget ? { budget: t.budget } : {}),
  };
}

export function sessionView(s: SessionRecord): Session {
  return {
    id: s.id,
    taskId: s.taskId,
    agent: s.agent,
    state: s.state,
    taskEnvironmentId: s.taskEnvironmentId,
    lastError: s.lastError,
    lastTurn: s.lastTurn ?? null,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    sandbox: s.sandbox,
    blockedConnections: s.blockedConnections ?? 0,
    ...(s.usage ? { usage: s.usage } : {}),
    ...(s.queued && s.queued.length > 0 ? { queued: s.queued } : {}),
    ...agentStateView(s.agentState),
  };
}

/** AG-2: modes, models, slash commands and plan of the session's agent, when it reported them. */
function agentStateView(a: AgentState | null | undefined): Pick<Session, "modes" | "models" | "commands" | "plan"> {
  if (!a) return {};
  const models = modelsOf(a);
  return {
    ...(a.modes ? { modes: a.modes } : {}),
    ...(models ? { models } : {}),
    ...(a.commands ? { commands: a.commands } : {}),
    ...(a.plan ? { plan: a.plan } : {}),
  };
}

export function messageView(m: MessageRecord): Message {
  return {
    id: m.id,
    sessionId: m.sessionId,
    role: m.role,
    text: m.text,
    ...(m.data !== null && m.data !== undefined ? { data: m.data } : {}),
    createdAt: m.createdAt,
  };
}

export function environmentRepositoryView(r: EnvironmentRepoRecord): EnvironmentRepository {
  return {
    repositoryId: r.repositoryId,
    branchSlug: r.branchSlug,
    worktreeId: r.worktreeId,
    worktreePath: r.worktreePath,
    worktreeBranch: r.worktreeBranch,
    baseBranch: r.baseBranch,
    position: r.position,
    status: r.status,
    errorMessage: r.errorMessage,
  };
}

export function environmentView(e: EnvironmentRecord, rows: readonly EnvironmentRepoRecord[]): Environment {
  return {
    id: e.id,
    taskId: e.taskId,
    status: e.status,
    workspacePath: e.workspacePath,
    runnerId: e.runnerId,
    repositories: rows.map(environmentRepositoryView),
  };
}
