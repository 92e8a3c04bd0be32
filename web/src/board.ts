// The match board: both maps side by side in one artwork-free SVG that scales to the window
// (viewBox, width 100%) and pans and zooms (panzoom.ts).  Positions, paths, rivers, bridges
// and forests come from GetGameData (layout.ts places the forests); pieces, pawns, rule,
// ruins, contraband, item stocks and the quests on offer from the view.  Every clearing is a
// button for the keyboard as for the mouse.

import { clearingWords, drawClearing } from './clearing';
import type { ClearingView, ForestData, GameData, QuestData, SeatView, View } from './contract';
import { dragMoves, type Drop } from './drag';
import { CLEARING_H, CLEARING_W, FOREST_RX, FOREST_RY, forestPlaces, mapOffset, MAP_H, MAP_W, Place, places, TOP, viewBoxSize } from './layout';
import { Board, factionName, itemName, suitName, teamName } from './model';
import { panZoom } from './panzoom';
import { pawn, TEAM_COLOUR } from './pieces';
import { svg } from './svg';

export { places, TEAM_COLOUR };
export type { Place };

// The Performance API mark of the board's first drawing on a page: the time to first board,
// which the browser tests measure from the navigation's start.
export const FIRST_BOARD = 'frontier:first-board';

export interface BoardExtras {
  view?: View | null; // the served view (rule, items, ruins); absent when replaying
  factions: Record<string, string>; // seat -> faction
  teams: Record<string, string>; // seat -> team
  targets?: Set<string>; // clearings (or forests) with a legal command
  onClearing?: (id: string) => void;
  onDrag?: Drop; // a move dragged from one place to another (drag.ts)
}

export function drawBoard(root: SVGSVGElement, data: GameData, suits: Record<string, string>, board: Board, extras: BoardExtras): void {
  const focused = (document.activeElement as Element | null)?.closest?.('[data-clearing], [data-forest]');
  const keep = focused && root.contains(focused) ? focused.getAttribute('data-clearing') ?? focused.getAttribute('data-forest') : null;
  root.replaceChildren();
  root.setAttribute('role', 'group');
  root.setAttribute('aria-label', 'the board: both maps; each clearing is a button');
  panZoom(root, viewBoxSize());
  dragMoves(root, extras.onDrag);
  drawBands(root, data, extras.view);
  drawLinks(root, data);
  const viewClearings: Record<string, ClearingView> = {};
  for (const c of extras.view?.clearings ?? []) viewClearings[c.id] = c;
  const forests = forestPlaces(data);
  for (const f of data.forests) if (forests[f.id]) root.append(drawForest(f, forests[f.id], board, extras));
  const at = places(data);
  for (const c of data.clearings) {
    const vc = viewClearings[c.id];
    const g = drawClearing(c, at[c.id], suits[c.id] ?? '', board, vc, extras);
    const words = clearingWords(c, suits[c.id] ?? '', board, vc);
    const height = g.querySelector('.box')?.getAttribute('height') ?? String(CLEARING_H);
    const hit = svg('rect', { width: CLEARING_W, height, rx: 30, class: 'hit' });
    hit.append(svg('title', {}, words));
    g.append(hit);
    interactive(hit, c.id, extras.targets?.has(c.id) ? `${words}; has commands` : words, extras);
    root.append(g);
  }
  if (keep) (root.querySelector(`[data-clearing="${keep}"] .hit, [data-forest="${keep}"] .hit`) as SVGElement | null)?.focus({ preventScroll: true });
  if (!performance.getEntriesByName(FIRST_BOARD, 'mark').length) performance.mark(FIRST_BOARD);
}

/** The maps' bands and headings: titles, item stocks, quests on offer, items left in ruins. */
function drawBands(root: SVGSVGElement, data: GameData, view: View | null | undefined): void {
  for (const m of data.maps) {
    const dx = mapOffset(m.name);
    root.append(svg('rect', { x: dx, y: -210, width: MAP_W, height: MAP_H + 210, rx: 40, class: `map map-${m.name}` }));
    root.append(svg('text', { x: dx + 30, y: -140, class: 'map-title' }, `${m.display_name || m.name} · home of team ${teamName(m.home_team)}`));
    if (!view) continue;
    const stock = view.stock.find((s) => s.map === m.name);
    const items = (stock?.items ?? []).map((it) => `${itemName(it.item)} ${it.count}`).join(' · ');
    root.append(svg('text', { x: dx + 30, y: -60, class: 'stock', 'data-stock': m.name }, `Item stock: ${items || 'none'}`));
  }
  if (!view) return;
  const quests: Record<string, QuestData> = {};
  for (const q of data.quests) quests[q.id] = q;
  const offered = view.quests.map((id) => {
    const q = quests[id];
    return q ? `${q.name} (${suitName(q.suit)}: ${q.items.map(itemName).join(' + ')})` : id;
  });
  root.append(svg('text', { x: 10, y: TOP + 80, class: 'band', id: 'quests-on-offer' },
    `Quests on offer: ${offered.join(' · ') || 'none'} · ${view.quest_deck_count} in the deck`));
  const pool = view.ruin_pool.map(itemName).join(', ');
  root.append(svg('text', { x: 10, y: TOP + 160, class: 'band' }, `Items left in ruins: ${pool || 'none'}`));
}

/** Paths, rivers (blue dashes) and the Border Bridges with their fee, fully inside the gap. */
function drawLinks(root: SVGSVGElement, data: GameData): void {
  const at = places(data);
  const byId: Record<string, { name: string }> = {};
  for (const c of data.clearings) byId[c.id] = c;
  for (const l of data.paths) {
    const a = at[l.a], b = at[l.b];
    if (a && b) root.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'path' }));
  }
  for (const l of data.rivers) {
    const a = at[l.a], b = at[l.b];
    if (a && b) root.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'river' }));
  }
  for (const l of data.bridges) {
    const a = at[l.a], b = at[l.b];
    if (!a || !b) continue;
    root.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'bridge' }));
    const x = MAP_W + 165; // the middle of the gap between the maps
    const y = (a.y + b.y) / 2 + (a.y < MAP_H / 2 ? 110 : -330);
    const label = svg('text', { x, y, class: 'bridge-label', 'text-anchor': 'middle' });
    const lines = ['Border Bridge', `${byId[l.a].name} ↔ ${byId[l.b].name}`, 'fee: 1 card of the', "destination's suit"];
    lines.forEach((t, i) => label.append(svg('tspan', { x, dy: i ? 56 : 0 }, t)));
    root.append(label);
  }
}

function forestLabel(f: ForestData, here: string[]): string {
  const name = f.id.split('.').pop() ?? f.id;
  return `${name} forest${here.length ? `, Vagabond pawn ${here.join(' ')}` : ''}`;
}

function drawForest(f: ForestData, p: Place, board: Board, extras: BoardExtras): SVGElement {
  const here = board.pawns[f.id] ?? [];
  const target = extras.targets?.has(f.id);
  const g = svg('g', { class: 'forest', 'data-forest': f.id });
  g.append(svg('ellipse', { cx: p.x, cy: p.y, rx: FOREST_RX, ry: FOREST_RY, class: target ? 'forest-shape target' : 'forest-shape' }));
  g.append(svg('path', { d: `M${p.x} ${p.y - 78} l-34 48 h22 l-26 36 h76 l-26 -36 h22 z`, class: 'tree' }));
  const name = f.id.split('.').pop() ?? '';
  if (here.length) {
    const pawns = svg('g', { transform: `translate(${p.x},${p.y + 4}) scale(1.2)` }); // as large as in a clearing
    here.forEach((seat, i) => pawns.append(pawn(-95, i * 62, seat, extras.teams[seat] ?? seat[0])));
    g.append(pawns);
  } else g.append(svg('text', { x: p.x, y: p.y + 72, class: 'forest-name', 'text-anchor': 'middle' }, name));
  const hit = svg('ellipse', { cx: p.x, cy: p.y, rx: FOREST_RX, ry: FOREST_RY, class: 'hit' });
  hit.append(svg('title', {}, forestLabel(f, here)));
  g.append(hit);
  if (target || here.length) interactive(hit, f.id, forestLabel(f, here), extras);
  return g;
}

/** Makes the shape laid over a clearing or forest a button: focusable, named, Enter and
 *  Space act as a click.  The button is that empty shape, not the drawing under it, so its
 *  name (the contents in words) need not repeat the drawing's scattered labels. */
function interactive(g: SVGElement, id: string, label: string, extras: BoardExtras): void {
  g.setAttribute('tabindex', '0');
  g.setAttribute('role', 'button');
  g.setAttribute('aria-label', label);
  const on = extras.onClearing;
  if (!on) { g.setAttribute('aria-disabled', 'true'); return; }
  g.addEventListener('click', () => on(id));
  g.addEventListener('keydown', (e) => {
    const key = (e as KeyboardEvent).key;
    if (key !== 'Enter' && key !== ' ') return;
    e.preventDefault();
    on(id);
    // the commands of a clearing open in the page's menu: the keyboard goes on there
    (document.querySelector('#act-menu button') as HTMLElement | null)?.focus();
  });
}

export function factionLabel(seat: Pick<SeatView, 'faction' | 'character'>): string {
  const f = factionName(seat.faction);
  const ch = seat.character.replace('CHARACTER_', '').replace('UNSPECIFIED', '').toLowerCase();
  return ch ? `${f} (${ch})` : f;
}

export { suitName };
