/**
 * What a card shows beyond the task row: sessions (agent state), open permission questions,
 * the ± stat and branch from Changes, pull requests. Read only for mounted (visible) cards,
 * cached, and kept fresh by the event feed.
 */
import type { Changes, Session } from "@grove/protocol";
import { useQuery } from "@tanstack/react-query";
import { keys } from "../api/keys.js";
import { getCapabilities, getChanges, listPermissions, listPullRequests, listSessions } from "../api/resources.js";
import type { PermissionAsk, PullRequest } from "../api/types.js";

export function useCapabilities(): Set<string> | undefined {
  return useQuery({ queryKey: keys.capabilities, queryFn: getCapabilities }).data;
}

export interface Activity {
  sessions: Session[] | undefined;
  asks: number;
  changes: Changes | undefined;
  pullRequests: PullRequest[] | undefined;
}

export function useActivity(taskId: string, archived: boolean): Activity {
  const caps = useCapabilities();
  const sessions = useQuery({ queryKey: keys.sessions(taskId), queryFn: () => listSessions(taskId) }).data;
  const running = sessions?.filter((s) => s.state === "running" || s.state === "starting") ?? [];
  const asks = useQuery({
    queryKey: keys.permissions(running[0]?.id ?? "-"),
    queryFn: () => listPermissions(running[0]!.id),
    enabled: running.length > 0,
  }).data as PermissionAsk[] | undefined;
  const hasWork = (sessions?.length ?? 0) > 0 && !archived;
  const changes = useQuery({ queryKey: keys.changes(taskId), queryFn: () => getChanges(taskId), enabled: hasWork }).data;
  const prs = useQuery({
    queryKey: keys.pullRequests(taskId),
    queryFn: () => listPullRequests(taskId),
    enabled: hasWork && !!caps?.has("GET /tasks/{id}/pull-requests"),
  }).data;
  return { sessions, asks: running.length > 0 ? (asks?.length ?? 0) : 0, changes, pullRequests: prs };
}
