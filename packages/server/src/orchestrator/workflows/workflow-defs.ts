import { stringify } from "yaml";
import type { Workflow } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { DEFAULT_WORKFLOW_NAME, type WorkflowRecord, defaultWorkflow } from "../../domain/workflow.js";
import { parseWorkflow } from "../../domain/workflow-validate.js";
import { issueApi } from "../../providers/issues.js";
import type { Deps } from "../context.js";
import { isRemoteRepository } from "../refresh/refresh-remote.js";

/** Workflow names: what a URL segment, a file name and a YAML key can all carry. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The public shape (`Workflow` of `@grove/protocol`). */
export function workflowView(w: WorkflowRecord): Workflow {
  return {
    name: w.name,
    repositoryId: w.repositoryId,
    version: w.version,
    source: w.source,
    steps: w.definition.steps.map((s) => ({
      id: s.id,
      ...(s.wipLimit !== undefined ? { wipLimit: s.wipLimit } : {}),
      ...(s.guard ? { guard: s.guard } : {}),
      onEnter: s.onEnter,
      on: s.on,
    })),
    stopped: w.stopped,
    builtIn: w.name === DEFAULT_WORKFLOW_NAME,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

/** WF-1: the built-in default first, then the stored ones by name. */
export async function listWorkflows(deps: Pick<Deps, "store">): Promise<WorkflowRecord[]> {
  return [defaultWorkflow(), ...(await deps.store.workflows.list())];
}

export async function getWorkflowOr404(deps: Pick<Deps, "store">, name: string): Promise<WorkflowRecord> {
  if (name === DEFAULT_WORKFLOW_NAME) return defaultWorkflow();
  const w = await deps.store.workflows.get(name);
  if (!w) throw new AppError("not_found", `workflow ${name} not found`, { name });
  return w;
}

/**
 * WF-1: validates and stores a workflow (a new version). The body is YAML text, or a JSON
 * object stored as the YAML it is equivalent to. `ifVersion` makes it a compare-and-set on the
 * stored version (0: it must not exist yet); without it the write still never loses a
 * concurrent one silently (each bumps the version it read, or conflicts).
 */
export async function putWorkflow(deps: Pick<Deps, "store" | "profiles" | "now">, name: string, body: unknown, ifVersion?: number): Promise<WorkflowRecord> {
  if (name === DEFAULT_WORKFLOW_NAME)
    throw new AppError("workflow_builtin", "the default workflow is built in (the plain board); store another name", { name });
  if (!NAME.test(name))
    throw new AppError("invalid_request", `workflow name ${JSON.stringify(name)}: lower-case letters, digits, . _ - (at most 64)`, { field: "name" });
  const source = typeof body === "string" ? body : body !== null && typeof body === "object" ? stringify(body) : "";
  if (source.trim() === "") throw new AppError("invalid_workflow", "line 1: the workflow is empty", { line: 1, path: "(document)" });
  const { definition, repositoryId, repositoryLine, scheduleRepository, issuesRepository } = parseWorkflow(source, {
    agents: new Set(deps.profiles.map((p) => p.name)),
  });
  if (repositoryId !== null && !(await deps.store.getRepository(repositoryId))) {
    throw new AppError("invalid_workflow", `line ${repositoryLine}: repositoryId: repository ${repositoryId} not found`, {
      path: "repositoryId",
      line: repositoryLine,
    });
  }
  if (scheduleRepository && !(await deps.store.getRepository(scheduleRepository.id))) {
    const line = scheduleRepository.line;
    throw new AppError("invalid_workflow", `line ${line}: triggers.schedule.repositoryId: repository ${scheduleRepository.id} not found`, {
      path: "triggers.schedule.repositoryId",
      line,
    });
  }
  if (issuesRepository) {
    const { id, line } = issuesRepository;
    const repo = await deps.store.getRepository(id);
    const why = !repo
      ? `repository ${id} not found`
      : !isRemoteRepository(repo) || !issueApi(repo.provider)
        ? `repository ${repo.name} (${repo.provider}) has no provider issues API (GitHub and GitLab remotes have)`
        : undefined;
    if (why) throw new AppError("invalid_workflow", `line ${line}: triggers.issues.repositoryId: ${why}`, { path: "triggers.issues.repositoryId", line });
  }
  const current = await deps.store.workflows.get(name);
  const stored = current?.version ?? 0;
  if (ifVersion !== undefined && ifVersion !== stored) throw conflict(name, stored);
  const written = await deps.store.workflows.put({ name, repositoryId, source, definition, updatedAt: deps.now() }, stored);
  if (!written) throw conflict(name, (await deps.store.workflows.get(name))?.version ?? 0);
  return written;
}

export async function deleteWorkflow(deps: Pick<Deps, "store">, name: string): Promise<void> {
  if (name === DEFAULT_WORKFLOW_NAME) throw new AppError("workflow_builtin", "the default workflow is built in and cannot be deleted", { name });
  if (!(await deps.store.workflows.remove(name))) throw new AppError("not_found", `workflow ${name} not found`, { name });
}

/** WF-2: the per-workflow stop switch: no new runs while stopped (pending ones are cancelled by the engine). */
export async function setWorkflowStopped(deps: Pick<Deps, "store" | "now">, name: string, stopped: boolean): Promise<WorkflowRecord> {
  if (name === DEFAULT_WORKFLOW_NAME) throw new AppError("workflow_builtin", "the default workflow automates nothing", { name });
  const w = await deps.store.workflows.setStopped(name, stopped, deps.now());
  if (!w) throw new AppError("not_found", `workflow ${name} not found`, { name });
  return w;
}

function conflict(name: string, version: number): AppError {
  return new AppError("workflow_version_conflict", `workflow ${name} is at version ${version}; read it again and send ifVersion=${version}`, { name, version });
}
