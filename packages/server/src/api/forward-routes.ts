/**
 * SBX-5: the routes a runner forwards to the task's own runner — and the only routes a
 * signed runner-to-runner request may reach. Derived from the operations' `forward` entries in
 * the table (`@grove/protocol/operations`): forwarding is declared where the route is.
 */
import { API_OPERATIONS, type Forward, type ForwardScope, type Operation } from "@grove/protocol/operations";
import { routerPath } from "./operation-routes.js";

export type Scope = ForwardScope;
export type Rule = Forward;

/** `METHOD /path/:param` (the router's spelling, under `/api/v1`) → the operation's rule. */
const RULES: ReadonlyMap<string, Rule> = new Map(
  (Object.values(API_OPERATIONS) as Operation[]).flatMap((op) => (op.forward ? [[`${op.method.toUpperCase()} ${routerPath(op.path)}`, op.forward]] : [])),
);

/** Routes that still answer from the database when the task's runner is offline (its state is part of the answer). */
export const LOCAL_WHEN_OFFLINE: ReadonlySet<string> = new Set([...RULES].filter(([, rule]) => rule.localWhenOffline).map(([key]) => key));

/** The rule of a request's route, if any (route paths are registered under `/api/v1`). */
export function ruleOf(method: string, routeUrl: string | undefined): Rule | undefined {
  if (!routeUrl?.startsWith("/api/v1/")) return undefined;
  return RULES.get(`${method} ${routeUrl.slice("/api/v1".length)}`);
}

/** The forwarded routes, for tests and docs (`METHOD /path`). */
export const FORWARDED_ROUTES: readonly string[] = [...RULES.keys()];
