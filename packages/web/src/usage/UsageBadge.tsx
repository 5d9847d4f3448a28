/**
 * USE-1: a context ring (tokens in the agent's context / its window) and the cost, on the board's
 * card and the task page. The ring is a plain SVG arc, not a chart; an estimated cost (priced from
 * the table: the agent reported none) is marked `~`.
 */
export function formatCost(cost: number, estimated: boolean, currency = "USD"): string {
  const digits = cost >= 1 ? 2 : cost >= 0.01 ? 3 : 4;
  return `${estimated ? "~" : ""}${currency === "USD" ? "$" : ""}${cost.toFixed(digits)}${currency === "USD" ? "" : ` ${currency}`}`;
}

export function ContextRing({ used, window }: { used: number; window: number }) {
  const share = window > 0 ? Math.min(1, used / window) : 0;
  const r = 7;
  const c = 2 * Math.PI * r;
  const pct = Math.round(share * 100);
  return (
    <svg
      className={`context-ring${share >= 0.8 ? " full" : ""}`}
      width="18"
      height="18"
      viewBox="0 0 18 18"
      role="img"
      aria-label={`context ${pct} % used (${used} of ${window} tokens)`}
      data-context-used={used}
      data-context-window={window}
    >
      <circle cx="9" cy="9" r={r} className="ring-bg" fill="none" strokeWidth="3" />
      <circle cx="9" cy="9" r={r} className="ring-fg" fill="none" strokeWidth="3" strokeDasharray={`${share * c} ${c}`} transform="rotate(-90 9 9)" />
    </svg>
  );
}

export function UsageBadge({ usage }: { usage: { cost?: number; estimated?: boolean; currency?: string; contextUsed?: number; contextWindow?: number } }) {
  return (
    <span
      className="badge usage"
      data-cost={usage.cost ?? 0}
      title={usage.estimated ? "estimated from the price table: the agent reported tokens only" : "as the agent reported it"}
    >
      {usage.contextWindow ? <ContextRing used={usage.contextUsed ?? 0} window={usage.contextWindow} /> : null}
      <span className="usage-cost">{formatCost(usage.cost ?? 0, usage.estimated === true, usage.currency)}</span>
    </span>
  );
}
