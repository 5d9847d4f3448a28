import { Cron } from "croner";
import type { ScheduleDef } from "./workflow.js";

/**
 * WF-2 schedules. Cron expressions are read by croner (pinned): maintained, no dependencies,
 * and it evaluates a pattern in an IANA time zone through `Intl`, so daylight-saving changes
 * follow the zone's own rules rather than a fixed offset.
 */

/** Why a cron expression is refused, or undefined when croner accepts it (5 fields, or 6 with seconds first). */
export function cronProblem(expr: string): string | undefined {
  const fields = expr.trim().split(/\s+/).length;
  if (fields < 5 || fields > 6) return `a cron expression has 5 fields (minute hour day month weekday), or 6 with seconds first; got ${fields}`;
  try {
    new Cron(expr, { paused: true });
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** True when `Intl` knows the IANA time zone. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The tick a check at `nowMs` fires: the newest tick at or before now that is after `sinceMs`
 * (when the workflow was last changed). Ticks older than the newest were missed (the server was
 * down, or a check came late): they collapse into this one, so a restart catches up at most once.
 */
export function dueTick(s: Pick<ScheduleDef, "cron" | "timeZone">, sinceMs: number, nowMs: number): Date | undefined {
  const [newest] = new Cron(s.cron, { paused: true, timezone: s.timeZone }).previousRuns(1, new Date(nowMs + 1));
  return newest && newest.getTime() > sinceMs ? newest : undefined;
}

/** The first tick after `nowMs`, or undefined when the expression has no more. */
export function nextTick(s: Pick<ScheduleDef, "cron" | "timeZone">, nowMs: number): Date | undefined {
  return new Cron(s.cron, { paused: true, timezone: s.timeZone }).nextRun(new Date(nowMs)) ?? undefined;
}

/** The template fields of a tick: its local date (YYYY-MM-DD) and time (HH:MM) in the zone, and its UTC instant. */
export function tickFields(tick: Date, zone: string): Record<"date" | "time" | "at", string> {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(tick)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}`, at: tick.toISOString() };
}
