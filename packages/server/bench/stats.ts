import { median, type Row } from "./util.js";

/** Median and spread (min–max) of one measured series, as the bench table prints them. */
export interface Series {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function series(xs: number[]): Series {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

/** `123 ms (110–140)`. */
export function fmtMs(s: Series): string {
  return `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
}

/** The ratio of two medians, with the spread of per-round ratios when rounds pair up (A B A B). */
export function ratio(grove: number[], raw: number[]): string {
  const r = median(grove) / median(raw);
  const pairs = grove
    .slice(0, raw.length)
    .map((g, i) => g / (raw[i] ?? NaN))
    .filter((x) => Number.isFinite(x));
  return pairs.length > 1 ? `${r.toFixed(2)}× (${Math.min(...pairs).toFixed(2)}–${Math.max(...pairs).toFixed(2)})` : `${r.toFixed(2)}×`;
}

/**
 * A timed row: the median and spread (min–max) of Grove's rounds and of the raw reference measured
 * in the same run, their ratio (with the spread of per-round ratios), and the numbers for `--json`.
 */
export function timedRow(benchmark: string, grove: number[], raw: number[], target: string, rawLabel = ""): Row {
  const g = series(grove);
  const r = series(raw);
  return {
    benchmark: `${benchmark} [${g.n} rounds]`,
    grove: fmtMs(g),
    raw: `${rawLabel}${fmtMs(r)}`,
    ratio: ratio(grove, raw),
    target,
    data: { grove: g, raw: r, ratio: g.median / r.median },
  };
}
