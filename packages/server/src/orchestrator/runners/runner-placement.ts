import type { Runner } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { needsCredentialKey, isRemoteRepository } from "../../domain/refresh-route.js";
import { runnerState } from "../../domain/runner.js";
import { credentialKeyIdOf } from "../refresh/remote-context.js";
import type { Deps } from "../context.js";
import type { RunnerRegistry } from "./runner-registry.js";

/** Where a task's operations run: its environment's runner, or none yet. */
export interface TaskOwner {
  runnerId: string;
  local: boolean;
  state: "online" | "offline";
  /** The runner's advertised URL (`GROVE_RUNNER_URL`); undefined when it has no row. */
  url: string | undefined;
}

/** A runner a first materialization may go to. */
export interface Candidate {
  runnerId: string;
  local: boolean;
  url: string;
}

/** A repository of the task whose stored credential only a runner with the sealing key can open. */
interface KeyNeed {
  repositoryId: string;
  repositoryName: string;
  /** The sealing key's id; null for a credential sealed before migration 014. */
  keyId: string | null;
  registeredBy: string | undefined;
}

/** `409 no_runner_available` (`credential_key`): `runner` (or every fitting runner) lacks the key of `need`. */
function credentialKeyRefusal(taskId: string, need: KeyNeed, runner: Runner | undefined): AppError {
  const from = need.registeredBy ? `runner ${need.registeredBy} (which registered it)` : "the runner that registered it";
  const who = runner ? `runner ${runner.id} cannot` : "no online runner that fits the task can";
  return new AppError(
    "no_runner_available",
    `${who} open the stored credential of repository ${need.repositoryName}: it is sealed with credential key ${need.keyId ?? "(unrecorded)"}${runner ? `, runner ${runner.id} has key ${runner.credentialKeyId ?? "(unknown)"}` : ""}. Copy credential.key from the GROVE_HOME of ${from} into ${runner ? `runner ${runner.id}'s` : "the chosen runner's"} GROVE_HOME (mode 0600) and restart it, or place task ${taskId} on a runner that has that key`,
    {
      reason: "credential_key",
      repositoryId: need.repositoryId,
      credentialKeyId: need.keyId,
      ...(need.registeredBy ? { registeredBy: need.registeredBy } : {}),
      ...(runner ? { runnerId: runner.id, runnerCredentialKeyId: runner.credentialKeyId } : {}),
    },
  );
}

/**
 * Placement. A task's environment is placed when first materialized: on the runner
 * named in the request, else on an online runner advertising every label the task requires and
 * holding every repository of the task (a local checkout is held by the runner that registered
 * it, one registered before migration 013 by every runner; a remote repository by every runner
 * that can open its stored credential, see repositoryNeeds), least loaded first. Once the
 * environment exists its `runnerId` is the answer, never changed here.
 *
 * Load counts placements this process has sent and not yet seen answered (`inflight`), so
 * concurrent launches through one runner spread instead of all choosing the same idle runner;
 * the chosen runner still enforces its own capacity, and a refusal moves on to the next one.
 */
export class RunnerPlacement {
  private readonly inflight = new Map<string, number>();

  constructor(
    private readonly deps: Pick<Deps, "store" | "agents" | "home" | "runnerId">,
    private readonly registry: RunnerRegistry,
  ) {}

  /**
   * The task of a request (by its id, one of its sessions or one of its review comments) and the
   * runner of its environment (`owner` undefined before one exists). Undefined: no such
   * task/session/comment. A runner id without a row counts as offline (registry.stateOf).
   */
  async resolve(by: { taskId: string } | { sessionId: string } | { commentId: string }): Promise<{ taskId: string; owner: TaskOwner | undefined } | undefined> {
    if ("commentId" in by) {
      const comment = await this.deps.store.review.getComment(by.commentId);
      return comment ? this.resolve({ taskId: comment.taskId }) : undefined;
    }
    const row = await this.deps.store.placement.owner(by);
    if (!row) return undefined;
    if (row.runnerId === null) return { taskId: row.taskId, owner: undefined };
    if (row.runnerId === this.deps.runnerId) return { taskId: row.taskId, owner: { runnerId: row.runnerId, local: true, state: "online", url: undefined } };
    const state = row.runner ? runnerState(row.runner, Date.now()) : "offline";
    return { taskId: row.taskId, owner: { runnerId: row.runnerId, local: false, state, url: row.runner?.url } };
  }

  /**
   * Picks the best runner for a first materialization of `taskId` not in `tried` (`runnerId`
   * given: that one only) and holds a slot for it (call `release` once the launch answered).
   * Undefined when every fitting runner was tried. Refuses `runner_unknown`, `runner_offline`,
   * or `no_runner_available` (`no_match`: no online runner has the labels and repositories).
   */
  async pick(taskId: string, requested: string | undefined, tried: ReadonlySet<string>): Promise<(Candidate & { release: () => void }) | undefined> {
    const task = await this.deps.store.getTask(taskId);
    if (!task) throw new AppError("not_found", `task ${taskId} not found`, { taskId });
    const labels = await this.deps.store.placement.taskLabels(taskId);
    const needs = await this.repositoryNeeds(task.repositories.map((r) => r.repositoryId));
    const holders = needs.holders;
    // This runner's key as loaded now (its row says the same unless the key file was replaced).
    const ownKey = credentialKeyIdOf(this.deps);
    const runners = (await this.registry.list()).map((r) => (r.id === this.deps.runnerId ? { ...r, credentialKeyId: ownKey } : r));
    // No await from here on: the choice and its hold are one step, so concurrent picks see each other.
    if (requested !== undefined && !runners.some((r) => r.id === requested)) {
      throw new AppError("runner_unknown", `no runner ${requested} is registered (see GET /runners)`, { field: "runnerId", runnerId: requested });
    }
    const fitsPlace = (r: Runner): boolean => labels.every((l) => r.labels.includes(l)) && [...holders].every((h) => h === r.id);
    const lacksKey = (r: Runner): KeyNeed | undefined =>
      needs.keys.find((k) => (k.keyId !== null ? r.credentialKeyId !== k.keyId : (k.registeredBy ?? r.id) !== r.id));
    const fits = (r: Runner): boolean => fitsPlace(r) && lacksKey(r) === undefined;
    const reachable = runners.filter((r) => r.id === this.deps.runnerId || r.state === "online");
    let pool = reachable.filter(fits);
    if (requested !== undefined) {
      const named = runners.find((r) => r.id === requested)!;
      if (named.id !== this.deps.runnerId && named.state === "offline")
        throw new AppError("runner_offline", `runner ${requested} is offline`, { runnerId: requested });
      if (!fitsPlace(named)) {
        throw new AppError(
          "no_runner_available",
          `runner ${requested} cannot hold task ${taskId}: it lacks a required label (${labels.join(", ") || "none required"}) or a repository of the task`,
          {
            reason: "no_match",
            runnerId: requested,
            labels,
          },
        );
      }
      const missing = lacksKey(named);
      if (missing) throw credentialKeyRefusal(taskId, missing, named);
      pool = [named];
    }
    if (pool.length === 0) {
      // Everything fits somewhere but the credential key: say so, naming what to copy.
      const keyless = reachable.filter(fitsPlace);
      const missing = keyless.length > 0 ? lacksKey(keyless[0]!) : undefined;
      if (missing) throw credentialKeyRefusal(taskId, missing, undefined);
      throw new AppError(
        "no_runner_available",
        `no online runner advertises ${labels.length ? `the labels ${labels.join(", ")}` : "what the task needs"} and holds every repository of task ${taskId}`,
        {
          reason: "no_match",
          labels,
          ...(holders.size ? { repositoryRunners: [...holders] } : {}),
        },
      );
    }
    const load = (r: Runner): number => (r.id === this.deps.runnerId ? this.deps.agents.liveCount() : r.liveAgents) + (this.inflight.get(r.id) ?? 0);
    const free = (r: Runner): number => (r.maxAgents === null ? Number.MAX_SAFE_INTEGER : r.maxAgents - load(r));
    // Runners that look full last (their load may be a heartbeat old: they answer for themselves);
    // among equals the least loaded, then this runner (no hop), then by id.
    const best = pool
      .filter((r) => !tried.has(r.id))
      .sort(
        (a, b) =>
          Number(free(b) > 0) - Number(free(a) > 0) ||
          load(a) - load(b) ||
          Number(b.id === this.deps.runnerId) - Number(a.id === this.deps.runnerId) ||
          a.id.localeCompare(b.id),
      )[0];
    if (!best) return undefined;
    return { runnerId: best.id, local: best.id === this.deps.runnerId, url: best.url, release: this.hold(best.id) };
  }

  /**
   * What the task's repositories ask of a runner: a local checkout is held by the runner that
   * registered it (`holders`); a remote repository is on every runner (each clones its own),
   * but one whose refresh and first clone use a stored credential needs a runner whose
   * credential key sealed it (`keys`; a credential sealed before migration 014 has no key id
   * and is opened only by the registering runner).
   */
  private async repositoryNeeds(ids: string[]): Promise<{ holders: Set<string>; keys: KeyNeed[] }> {
    const registering = await this.deps.store.placement.repositoryRunners(ids);
    const keyIds = await this.deps.store.placement.credentialKeyIds(ids);
    const holders = new Set<string>();
    const keys: KeyNeed[] = [];
    for (const id of ids) {
      const repo = await this.deps.store.getRepository(id);
      if (!repo) continue;
      const registeredBy = registering.get(id);
      if (!isRemoteRepository(repo)) {
        if (registeredBy !== undefined) holders.add(registeredBy);
      } else if (needsCredentialKey(repo) && keyIds.has(id)) {
        keys.push({ repositoryId: id, repositoryName: repo.name, keyId: keyIds.get(id) ?? null, registeredBy });
      }
    }
    return { holders, keys };
  }

  /** Counts a placement sent to `runnerId` until the returned function is called (once). */
  hold(runnerId: string): () => void {
    this.inflight.set(runnerId, (this.inflight.get(runnerId) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.inflight.get(runnerId) ?? 1) - 1;
      if (n <= 0) this.inflight.delete(runnerId);
      else this.inflight.set(runnerId, n);
    };
  }

  /** Whether this runner has a free slot now, counting placements held for it. */
  /** Agents running on this runner now (the figure a capacity refusal reports). */
  liveAgents(): number {
    return this.deps.agents.liveCount();
  }

  localHasRoom(): boolean {
    const max = this.registry.settings.maxAgents;
    return max === null || this.deps.agents.liveCount() + (this.inflight.get(this.deps.runnerId) ?? 0) <= max;
  }
}
