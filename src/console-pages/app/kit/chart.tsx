/**
 * A time-series chart drawn by uPlot (a small canvas chart library), sized to its container. It is an image to
 * assistive technology, named by `label` (a sentence with the totals); the numbers themselves are in a table the
 * view shows beside it, so the chart is never the only way to read them.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { lang } from '../i18n.ts';

export interface ChartProps {
  /** The accessible name: what the chart shows, in one sentence. */
  label: string;
  /** Bucket starts (RFC 3339) and one value per bucket. */
  points: readonly { at: string; value: number }[];
  /** The series' name (the y axis). */
  series: string;
  /** Hourly buckets show times, daily ones dates. */
  bucket: 'hour' | 'day';
}

const css = (name: string, fallback: string) =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

export function Chart(p: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const fg = css('--fg', '#1b1d21');
    const accent = css('--accent', '#1d4ed8');
    const grid = css('--line', '#c9ced6');
    const fmt = new Intl.DateTimeFormat(
      lang(),
      p.bucket === 'hour' ? { hour: 'numeric' } : { day: 'numeric', month: 'short' },
    );
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const plot = new uPlot(
      {
        width: Math.max(240, el.clientWidth),
        height: 220,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          { ...axis, values: (_u, splits) => splits.map((s) => fmt.format(new Date(s * 1000))) },
          { ...axis, values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? String(s) : '')) },
        ],
        series: [{}, { label: p.series, stroke: accent, width: 2, fill: `${accent}22`, points: { show: true } }],
      },
      [p.points.map((x) => Date.parse(x.at) / 1000), p.points.map((x) => x.value)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [p.points, p.bucket, p.series]);
  return <div class="chart" role="img" aria-label={p.label} ref={box} />;
}
