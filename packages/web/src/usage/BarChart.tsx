/**
 * USE-1: a bar chart drawn by uPlot (ADR 2026-12-01-usage-charts), one bar per label. Loaded only
 * with the Usage page. The numbers themselves are in the page's table too (a chart is a canvas:
 * screen readers and tests read the table).
 */
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export function BarChart({ title, labels, values, unit }: { title: string; labels: string[]; values: number[]; unit: string }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const host = el.current;
    if (!host) return;
    const xs = labels.map((_, i) => i);
    const width = Math.max(240, Math.min(640, host.clientWidth || 480));
    const plot = new uPlot(
      {
        width,
        height: 200,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: [-0.5, Math.max(0.5, labels.length - 0.5)] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          { values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? (labels[s] ?? "") : "")), gap: 4 },
          { label: unit, size: 60 },
        ],
        series: [{}, { label: title, stroke: "#2f7d4f", fill: "rgba(47,125,79,0.35)", paths: uPlot.paths.bars!({ size: [0.6, 60] }), points: { show: false } }],
      },
      [xs, values],
      host,
    );
    return () => plot.destroy();
  }, [labels, values, title, unit]);
  return (
    <figure className="usage-chart" data-chart={title} data-points={values.length}>
      <figcaption>{title}</figcaption>
      <div ref={el} aria-hidden="true" />
    </figure>
  );
}
