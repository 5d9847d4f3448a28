import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ErrorBody } from "@grove/protocol";
import { AppError } from "../domain/errors.js";
import type { Orchestrator } from "../orchestrator/orchestrator.js";
import type { TaskOwner } from "../orchestrator/runners/runner-placement.js";
import { forwardPath, passedHeaders, readAll, sendForward, type ForwardTarget } from "./forward-http.js";
import { LOCAL_WHEN_OFFLINE, ruleOf } from "./forward-routes.js";

export { FORWARDED_ROUTES, ruleOf } from "./forward-routes.js";

/** How this runner talks to the others. */
export interface ClusterOptions {
  runnerId: string;
  /** `GROVE_CLUSTER_SECRET`; forwarding needs it once more than one runner is registered. */
  secret: string | undefined;
  timeoutMs: number;
}

declare module "fastify" {
  interface FastifyRequest {
    /** A WebSocket route whose upgrade is piped to this runner instead (terminal). */
    groveForwardTo?: ForwardTarget;
  }
}

function offline(owner: TaskOwner, taskId: string): AppError {
  return new AppError("runner_offline", `task ${taskId} lives on runner ${owner.runnerId}, which is offline; nothing was done. Start that runner again.`, {
    taskId,
    runnerId: owner.runnerId,
  });
}

/**
 * The one forwarding seam: a `preValidation` hook on the API (after the trust, auth
 * and input guards) that resolves the task of a route in `RULES`, and when its environment
 * lives on another runner proxies the request to that runner's advertised URL with the cluster
 * secret in a header, streaming the answer back. An offline owner is `409 runner_offline`
 * before anything is sent or done. The first session of a task without an environment is
 * placed (RunnerPlacement) and sent to the chosen runner; a runner at capacity refuses
 * (`no_runner_available`, nothing written) and the next one is tried. A request that itself
 * came from another runner is never forwarded again.
 */
export function installForwarding(api: FastifyInstance, orch: Orchestrator, cluster: ClusterOptions): void {
  // Released when the response ends: a placement on this runner counts until the agent is up.
  api.addHook("preValidation", async (req: FastifyRequest, reply: FastifyReply) => {
    const rule = ruleOf(req.method, req.routeOptions.url);
    if (!rule) return;
    const id = (req.params as { id?: string }).id;
    if (!id) return;
    const found = await orch.placement.resolve(rule.scope === "session" ? { sessionId: id } : rule.scope === "comment" ? { commentId: id } : { taskId: id });
    if (!found) return; // the route answers not_found itself
    const { taskId, owner } = found;
    if (owner?.local) return;
    if (req.groveForwarded) {
      // Sent here by a runner that placed it here: only a first placement may run locally.
      if (!owner) return;
      throw new AppError("no_runner_available", `task ${taskId} is already placed on runner ${owner.runnerId}`, {
        reason: "placed_elsewhere",
        runnerId: owner.runnerId,
      });
    }
    if (!owner) {
      if (rule.place) return place(req, reply, orch, cluster, taskId);
      return; // nothing placed yet: the route answers (not_found, no environment) itself
    }
    const key = `${req.method} ${req.routeOptions.url!.slice("/api/v1".length)}`;
    if (owner.state === "offline") {
      if (LOCAL_WHEN_OFFLINE.has(key)) return;
      throw offline(owner, taskId);
    }
    if (!owner.url) throw offline(owner, taskId);
    const target = { runnerId: owner.runnerId, url: owner.url };
    if (rule.ws) {
      secretOrThrow(cluster);
      req.groveForwardTo = target;
      return;
    }
    return proxy(req, reply, cluster, target);
  });
}

function secretOrThrow(cluster: ClusterOptions): string {
  if (!cluster.secret)
    throw new AppError(
      "cluster_secret_missing",
      "this task lives on another runner; forwarding to it needs GROVE_CLUSTER_SECRET on this runner (the same value on every runner)",
    );
  return cluster.secret;
}

function callOf(req: FastifyRequest, cluster: ClusterOptions) {
  return {
    method: req.method,
    path: forwardPath(req.url),
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
    accept: req.headers.accept,
    from: cluster.runnerId,
    secret: secretOrThrow(cluster),
    person: req.grovePerson === true,
    timeoutMs: cluster.timeoutMs,
  };
}

/** Streams the owner's answer back as is (status, body, content headers). */
async function proxy(req: FastifyRequest, reply: FastifyReply, cluster: ClusterOptions, target: ForwardTarget): Promise<FastifyReply> {
  const res = await sendForward(target, callOf(req, cluster));
  void reply.status(res.statusCode ?? 502).headers(passedHeaders(res));
  return reply.send(res);
}

/** A first session: the chosen runner runs it; capacity refusals move on to the next runner. */
async function place(req: FastifyRequest, reply: FastifyReply, orch: Orchestrator, cluster: ClusterOptions, taskId: string): Promise<FastifyReply | undefined> {
  const requested = (req.body as { runnerId?: unknown } | undefined)?.runnerId;
  const tried = new Set<string>();
  const refused: Record<string, unknown>[] = [];
  for (;;) {
    const pick = await orch.placement.pick(taskId, typeof requested === "string" ? requested : undefined, tried);
    if (!pick) {
      if (refused.length > 0 && refused.every((r) => r.unreachable)) {
        throw new AppError("runner_unreachable", `no runner that can hold task ${taskId} accepted a connection`, {
          runnerId: refused[0]!.runnerId,
          reason: "ECONNREFUSED",
          runners: refused,
        });
      }
      throw new AppError("no_runner_available", `every runner that can hold task ${taskId} is at its GROVE_RUNNER_MAX_AGENTS; stop a session or add a runner`, {
        reason: "capacity",
        // One fitting runner: its own figures, as a runner refusing locally gives them.
        ...(refused.length === 1 ? refused[0] : {}),
        runners: refused,
      });
    }
    tried.add(pick.runnerId);
    if (pick.local) {
      if (!orch.placement.localHasRoom()) {
        pick.release();
        refused.push({ runnerId: pick.runnerId, maxAgents: orch.runners.settings.maxAgents, liveAgents: orch.placement.liveAgents() });
        continue;
      }
      reply.raw.once("close", pick.release);
      return undefined; // handled here by the route
    }
    let status: number;
    let headers: Record<string, string>;
    let body: Buffer;
    try {
      const res = await sendForward(pick, callOf(req, cluster));
      status = res.statusCode ?? 502;
      headers = passedHeaders(res);
      body = await readAll(res);
    } catch (e) {
      // A refused connection sent nothing: the runner died within its heartbeat bound; try the next.
      if (e instanceof AppError && e.details?.reason === "ECONNREFUSED") {
        refused.push({ runnerId: pick.runnerId, unreachable: true });
        continue;
      }
      throw e;
    } finally {
      pick.release();
    }
    if (status === 409) {
      const err = parseError(body);
      if (err?.code === "no_runner_available" && err.details?.reason === "capacity") {
        refused.push({ runnerId: pick.runnerId, ...pickDetails(err.details) });
        continue;
      }
    }
    return reply.status(status).headers(headers).send(body);
  }
}

function parseError(body: Buffer): ErrorBody["error"] | undefined {
  try {
    return (JSON.parse(body.toString("utf8")) as ErrorBody).error;
  } catch {
    return undefined;
  }
}

function pickDetails(d: Record<string, unknown> | undefined): Record<string, unknown> {
  return { maxAgents: d?.maxAgents, liveAgents: d?.liveAgents };
}
