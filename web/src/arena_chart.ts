// SVG pictures of the arena's ratings, no library: an interval bar per entrant on one shared
// scale (so overlapping intervals show as overlapping bars), and a line chart of ratings over
// the arena's matches.  Colours come from classes (arena.css), numbers are rounded for people.

import { svg } from './svg';

export interface Point { x: number; y: number; lo?: number; hi?: number }
export interface Series { name: string; points: Point[]; tone: number }

export const TONES = 8;  // arena.css: .tone-0 ... .tone-7
export const fmt = (v: number): string => (Math.round(v * 10) / 10).toFixed(1);

// The interval [lo, hi] with its centre, drawn on the scale [min, max].
export function intervalBar(lo: number, mid: number, hi: number, min: number, max: number, label: string): SVGElement {
  const W = 200, H = 18;
  const at = (v: number): number => ((v - min) / Math.max(max - min, 1e-9)) * W;
  const bar = svg('svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', class: 'interval', role: 'img', 'aria-label': label });
  bar.append(svg('rect', { x: 0, y: H / 2 - 0.5, width: W, height: 1, class: 'interval-axis' }));
  bar.append(svg('rect', { x: at(lo), y: 3, width: Math.max(at(hi) - at(lo), 1), height: H - 6, rx: 3, class: 'interval-span' }));
  bar.append(svg('rect', { x: at(mid) - 1, y: 0, width: 2, height: H, class: 'interval-mid' }));
  return bar;
}

function ticks(min: number, max: number, count: number): number[] {
  const step = Math.max(1, Math.ceil((max - min) / count));
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max; v += step) out.push(v);
  return out;
}

// A line per series over x (the arena's match number), with the band [lo, hi] of a series
// that has one; an empty list of series draws nothing.
export function lineChart(series: Series[], label: string): SVGElement {
  const W = 640, H = 260, L = 44, R = 12, T = 12, B = 34;
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => p.x);
  const ys = all.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.floor(Math.min(...ys)) - 1, Math.ceil(Math.max(...ys)) + 1];
  const px = (x: number): number => L + (x1 === x0 ? (W - L - R) / 2 : ((x - x0) / (x1 - x0)) * (W - L - R));
  const py = (y: number): number => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': label });
  for (const v of ticks(y0, y1, 5)) {
    chart.append(svg('line', { x1: L, x2: W - R, y1: py(v), y2: py(v), class: 'grid' }));
    chart.append(svg('text', { x: L - 6, y: py(v) + 4, class: 'tick', 'text-anchor': 'end' }, String(v)));
  }
  for (const v of ticks(x0, x1, 6)) {
    chart.append(svg('text', { x: px(v), y: H - B + 16, class: 'tick', 'text-anchor': 'middle' }, String(v)));
  }
  chart.append(svg('text', { x: (L + W - R) / 2, y: H - 4, class: 'tick', 'text-anchor': 'middle' }, 'arena match number'));
  for (const s of series) {
    const banded = s.points.filter((p) => p.lo !== undefined && p.hi !== undefined);
    if (banded.length) {
      const upper = banded.map((p) => `${px(p.x)},${py(p.hi as number)}`);
      const lower = banded.map((p) => `${px(p.x)},${py(p.lo as number)}`).reverse();
      chart.append(svg('polygon', { points: [...upper, ...lower].join(' '), class: `band tone-${s.tone}` }));
    }
    const line = s.points.map((p) => `${px(p.x)},${py(p.y)}`).join(' ');
    chart.append(svg('polyline', { points: line, class: `line tone-${s.tone}` }));
    for (const p of s.points.length === 1 ? s.points : []) {
      chart.append(svg('circle', { cx: px(p.x), cy: py(p.y), r: 4, class: `dot tone-${s.tone}` }));
    }
  }
  return chart;
}
