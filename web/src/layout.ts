// Where things stand on the drawn board, computed once from GetGameData: each clearing at its
// printed position (each map in its own band, Winter right of Autumn), and each forest, which
// the data names but does not place, near the middle of the clearings around it, moved to the
// nearest spot where it covers no clearing, path, river or other forest.  Pure functions.

export const CLEARING_W = 450; // a clearing's box: the largest that never overlaps on either map
export const CLEARING_H = 370;
export const MAP_W = 2470; // a map's band: its printed positions plus half a box either side
export const MAP_H = 2230;
export const MAP_GAP = 330; // between the bands: the Border Bridges and their fee labels
export const TOP = -430; // the bands above the maps: quests on offer, titles, item stocks
export const FOREST_RX = 130;
export const FOREST_RY = 92;

import type { GameData } from './contract';

export interface Place { x: number; y: number }

export function mapOffset(mapName: string): number {
  return mapName === 'winter' ? MAP_W + MAP_GAP : 0;
}

export function viewBoxSize(): { x: number; y: number; w: number; h: number } {
  return { x: -20, y: TOP, w: 2 * MAP_W + MAP_GAP + 40, h: MAP_H - TOP + 20 };
}

export function places(data: Pick<GameData, 'clearings'>): Record<string, Place> {
  const out: Record<string, Place> = {};
  for (const c of data.clearings) out[c.id] = { x: c.x + mapOffset(c.map_name), y: c.y };
  return out;
}

interface Rect { x0: number; y0: number; x1: number; y1: number }

const overlaps = (a: Rect, b: Rect): boolean => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

function crossesSegment(r: Rect, a: Place, b: Place): boolean {
  // sample the segment: exact enough at this scale, and plain to read
  const steps = 40;
  for (let i = 0; i <= steps; i++) {
    const x = a.x + ((b.x - a.x) * i) / steps;
    const y = a.y + ((b.y - a.y) * i) / steps;
    if (x > r.x0 && x < r.x1 && y > r.y0 && y < r.y1) return true;
  }
  return false;
}

const forestCache = new WeakMap<object, Record<string, Place>>();

/** Each forest's drawing position (see the module comment); the same data gives the same places. */
export function forestPlaces(data: GameData): Record<string, Place> {
  const cached = forestCache.get(data);
  if (cached) return cached;
  const at = places(data);
  const out: Record<string, Place> = {};
  for (const m of data.maps) {
    const dx = mapOffset(m.name);
    const taken: Rect[] = data.clearings.filter((c) => c.map_name === m.name).map((c) => {
      const p = at[c.id];
      return { x0: p.x - CLEARING_W / 2, y0: p.y - CLEARING_H / 2, x1: p.x + CLEARING_W / 2, y1: p.y + CLEARING_H / 2 };
    });
    const lines = [...data.paths, ...data.rivers]
      .filter((l) => at[l.a] && at[l.b] && l.a.startsWith(m.name + '.'))
      .map((l) => [at[l.a], at[l.b]] as [Place, Place]);
    for (const f of data.forests.filter((f) => f.map_name === m.name)) {
      const around = f.clearing_ids.map((id) => at[id]).filter((p): p is Place => p !== undefined);
      if (!around.length) continue;
      const cx = around.reduce((s: number, p: Place) => s + p.x, 0) / around.length;
      const cy = around.reduce((s: number, p: Place) => s + p.y, 0) / around.length;
      const spot = freeSpot(cx, cy, dx, taken, lines) ?? freeSpot(cx, cy, dx, taken, []) ?? { x: cx, y: cy };
      out[f.id] = spot;
      taken.push(rectAround(spot, 0));
    }
  }
  forestCache.set(data, out);
  return out;
}

function rectAround(p: Place, margin: number): Rect {
  return { x0: p.x - FOREST_RX - margin, y0: p.y - FOREST_RY - margin, x1: p.x + FOREST_RX + margin, y1: p.y + FOREST_RY + margin };
}

function freeSpot(cx: number, cy: number, dx: number, taken: Rect[], lines: [Place, Place][]): Place | null {
  for (let r = 0; r <= 700; r += 10) {
    const n = Math.max(1, (r / 10) * 2);
    for (let k = 0; k < n; k++) {
      const a = (2 * Math.PI * k) / n;
      const p = { x: Math.round(cx + r * Math.cos(a)), y: Math.round(cy + r * Math.sin(a)) };
      const box = rectAround(p, 14);
      if (box.x0 < dx || box.x1 > dx + MAP_W || box.y0 < 0 || box.y1 > MAP_H) continue;
      if (taken.some((t) => overlaps(box, t))) continue;
      if (lines.some(([a1, b1]) => crossesSegment(box, a1, b1))) continue;
      return p;
    }
  }
  return null;
}
