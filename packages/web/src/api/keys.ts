/** React Query keys: one place, so the event feed (live/cache.ts) and the views agree. */
export const keys = {
  /** Pages of one board column: `taskPages`, archived, state, repositoryId, q, page size. */
  taskPages: (archived: boolean, state: string, repositoryId: string, q: string, limit: number) =>
    ["taskPages", archived, state, repositoryId, q, limit] as const,
  /** WEB-30: the board's exact count per state, under its server-side filters. */
  taskCounts: (archived: boolean, repositoryId: string, q: string) => ["taskCounts", archived, repositoryId, q] as const,
  task: (id: string) => ["task", id] as const,
  /** MCP-3: a task's subtasks (their summaries), on its page. */
  subtasks: (taskId: string) => ["subtasks", taskId] as const,
  sessions: (taskId: string) => ["sessions", taskId] as const,
  messages: (sessionId: string) => ["messages", sessionId] as const,
  permissions: (sessionId: string) => ["permissions", sessionId] as const,
  changes: (taskId: string) => ["changes", taskId] as const,
  diff: (taskId: string, repositoryId: string, path: string, scope = "all") => ["diff", taskId, repositoryId, path, scope] as const,
  trash: ["trash"] as const,
  conflicts: (taskId: string) => ["conflicts", taskId] as const,
  environment: (taskId: string) => ["environment", taskId] as const,
  cleanupJobs: (taskId: string) => ["cleanupJobs", taskId] as const,
  comments: (taskId: string) => ["comments", taskId] as const,
  workflowRuns: (taskId: string) => ["workflowRuns", taskId] as const,
  pullRequests: (taskId: string) => ["pullRequests", taskId] as const,
  repositories: ["repositories"] as const,
  agents: ["agents"] as const,
  health: ["health"] as const,
  capabilities: ["capabilities"] as const,
};
