/**
 * USE-1: the Usage page (`/usage`), loaded on demand with its charting library: cost per UTC day,
 * per agent profile and per repository (uPlot bar charts), and a table of every task with its
 * tokens and cost (`GET /usage`, summed over every runner). `~` marks an estimated cost.
 */
import type { UsageGroupBy, UsageReport, UsageRow } from "@grove/protocol";
import { useQuery } from "@tanstack/react-query";
import { call } from "../api/client.js";
import { Link } from "../router.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { BarChart } from "./BarChart.js";
import { DailyCap } from "./DailyCap.js";
import { formatCost } from "./UsageBadge.js";

async function allRows(groupBy: UsageGroupBy): Promise<UsageRow[]> {
  const rows: UsageRow[] = [];
  let cursor: string | null = null;
  do {
    const page: UsageReport = await call("getUsage", { query: { groupBy, limit: 500, cursor: cursor ?? undefined } });
    rows.push(...page.rows);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

function useRows(groupBy: UsageGroupBy) {
  return useQuery({ queryKey: ["usage", groupBy], queryFn: () => allRows(groupBy), refetchInterval: 15_000 });
}

export function UsagePage() {
  const days = useRows("day");
  const agents = useRows("agent");
  const repos = useRows("repository");
  const tasks = useRows("task");
  const error = days.error ?? agents.error ?? repos.error ?? tasks.error;
  const taskRows = tasks.data ?? [];
  const total = taskRows.reduce((a, r) => ({ tin: a.tin + r.tokensIn, tout: a.tout + r.tokensOut, cost: a.cost + r.cost, est: a.est || r.estimated }), {
    tin: 0,
    tout: 0,
    cost: 0,
    est: false,
  });
  const chart = (title: string, rows: UsageRow[] | undefined) =>
    rows && rows.length > 0 ? (
      <BarChart title={title} labels={rows.map((r) => r.label ?? (r.key || "(none)"))} values={rows.map((r) => r.cost)} unit="USD" />
    ) : null;
  return (
    <section className="card usage-page" aria-label="Usage">
      <h1>Usage</h1>
      <p className="muted">
        Tokens and cost of every agent, over every runner. Costs marked ~ are estimated from the price table (the agent reported tokens only).
      </p>
      <ErrorBox error={error} context="Could not load usage" />
      <DailyCap />
      {tasks.data && taskRows.length === 0 ? <p className="empty">No usage recorded yet.</p> : null}
      <div className="usage-charts">
        {chart("Cost per day", days.data)}
        {chart("Cost per agent", agents.data)}
        {chart("Cost per repository", repos.data)}
      </div>
      {taskRows.length > 0 ? (
        <table className="usage-table">
          <thead>
            <tr>
              <th>Task</th>
              <th>Tokens in</th>
              <th>Tokens out</th>
              <th>Cost</th>
            </tr>
          </thead>
          <tbody>
            {taskRows.map((r) => (
              <tr key={r.key} data-task-id={r.key}>
                <td>
                  <Link href={`/tasks/${r.key}`}>{r.label ?? r.key}</Link>
                </td>
                <td className="num">{r.tokensIn}</td>
                <td className="num">{r.tokensOut}</td>
                <td className="num">{formatCost(r.cost, r.estimated, r.currency)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-total="">
              <th>Total</th>
              <td className="num">{total.tin}</td>
              <td className="num">{total.tout}</td>
              <td className="num">{formatCost(total.cost, total.est)}</td>
            </tr>
          </tfoot>
        </table>
      ) : null}
    </section>
  );
}
