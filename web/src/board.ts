// The match board: both maps side by side in one artwork-free SVG.  Positions, paths,
// rivers and bridges come from GetGameData; pieces, rule and items from the view.

import { Board, factionName, itemName, seatName, suitName, teamName } from './model';
import { svg } from './svg';

export const TEAM_COLOUR: Record<string, string> = { A: '#1f5fbf', B: '#c0392b' };
const SUIT_FILL: Record<string, string> = { fox: '#f4c2a8', rabbit: '#f6e7a6', mouse: '#e9c6d6', bird: '#cfe3f5' };
const ICON: Record<string, string> = { marquise: 'M', eyrie: 'E', alliance: 'W', vagabond: 'V' };
const WINTER_DX = 1950;
const SCALE = 0.72; // the printed positions, packed closer so that the text stays legible
const W = 440;
const H = 300;

export interface Place { x: number; y: number }

export function places(data: any): Record<string, Place> {
  const out: Record<string, Place> = {};
  for (const c of data.clearings) out[c.id] = { x: c.x * SCALE + (c.map_name === 'winter' ? WINTER_DX : 0), y: c.y * SCALE };
  return out;
}

export interface BoardExtras {
  view?: any; // the served view (rule, items, ruins); absent when replaying
  factions: Record<string, string>; // seat -> faction
  teams: Record<string, string>; // seat -> team
  targets?: Set<string>; // clearings with a legal command
  onClearing?: (id: string) => void;
}

export function drawBoard(root: SVGSVGElement, data: any, suits: Record<string, string>, board: Board, extras: BoardExtras): void {
  root.replaceChildren();
  root.setAttribute('viewBox', `-80 -200 ${WINTER_DX + 1960} 2060`);
  const at = places(data);
  const byId: Record<string, any> = {};
  for (const c of data.clearings) byId[c.id] = c;
  for (const [i, m] of (data.maps ?? []).entries()) {
    const dx = i === 0 ? 0 : WINTER_DX;
    root.append(svg('rect', { x: dx - 60, y: -180, width: 1890, height: 2020, rx: 40, class: `map map-${m.name}` }));
    const stock = extras.view?.stock?.find((s: any) => s.map === m.name);
    const items = (stock?.items ?? []).map((it: any) => `${itemName(it.item)} ${it.count}`).join(', ');
    root.append(svg('text', { x: dx - 20, y: -110, class: 'map-title' }, `${m.display_name || m.name} (home of team ${teamName(m.home_team)})`));
    if (extras.view) root.append(svg('text', { x: dx - 20, y: -50, class: 'stock' }, `Item stock: ${items || 'none'}`));
  }
  const rivers = new Set((data.rivers ?? []).map((l: any) => `${l.a}|${l.b}`));
  for (const l of data.paths ?? []) {
    const a = at[l.a], b = at[l.b];
    const river = rivers.has(`${l.a}|${l.b}`) || rivers.has(`${l.b}|${l.a}`);
    root.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: river ? 'path river' : 'path' }));
  }
  for (const l of data.rivers ?? []) {
    const a = at[l.a], b = at[l.b];
    if (a && b) root.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'river' }));
  }
  for (const l of data.bridges ?? []) {
    const a = at[l.a], b = at[l.b];
    root.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'bridge' }));
    const fee = `Bridge ${byId[l.a].name} ↔ ${byId[l.b].name} · fee: 1 card of the destination's suit`;
    root.append(svg('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 + (a.y < 700 ? -170 : 190), class: 'bridge-label', 'text-anchor': 'middle' }, fee));
  }
  const viewClearings: Record<string, any> = {};
  for (const c of extras.view?.clearings ?? []) viewClearings[c.id] = c;
  for (const c of data.clearings) drawClearing(root, c, at[c.id], suits[c.id] ?? '', board, viewClearings[c.id], extras);
}

function drawClearing(root: SVGSVGElement, c: any, p: Place, suit: string, board: Board, vc: any, extras: BoardExtras): void {
  const g = svg('g', { class: 'clearing', 'data-clearing': c.id, transform: `translate(${p.x - W / 2},${p.y - H / 2})` });
  const ruler = teamName(vc?.ruler);
  if (ruler) g.append(svg('rect', { x: -16, y: -16, width: W + 32, height: H + 32, rx: 46, class: 'ruler', stroke: TEAM_COLOUR[ruler] }));
  const target = extras.targets?.has(c.id);
  g.append(svg('rect', { width: W, height: H, rx: 34, fill: SUIT_FILL[suit] ?? '#eee', class: target ? 'box target' : 'box' }));
  g.append(svg('text', { x: 16, y: 44, class: 'cname' }, `${c.priority}. ${c.name}`));
  g.append(svg('text', { x: W - 16, y: 44, class: 'csuit', 'text-anchor': 'end' }, suit || '?'));
  if (c.ruin && !(vc?.ruin_explored)) g.append(svg('text', { x: W - 16, y: 88, class: 'ruin', 'text-anchor': 'end' }, vc ? `ruin (${vc.ruin_items})` : 'ruin'));
  if (vc) g.append(svg('text', { x: 16, y: 88, class: 'slots' }, `slots ${vc.open_slots}/${c.slots}`));
  let y = 100;
  const pieces = board.clearings[c.id] ?? {};
  for (const seat of Object.keys(pieces).sort()) {
    const kinds = pieces[seat];
    const team = extras.teams[seat] ?? seat[0];
    const icon = ICON[extras.factions[seat] ?? ''] ?? '?';
    const others = Object.keys(kinds).filter((k) => k !== 'warrior').map((k) => `${k.replace('base_', 'base ')}${kinds[k] > 1 ? '×' + kinds[k] : ''}`);
    const row = svg('g', { class: 'badge', 'data-seat': seat });
    row.append(svg('rect', { x: 10, y, width: W - 20, height: 52, rx: 10, class: 'badge-box', stroke: TEAM_COLOUR[team] ?? '#333' }));
    row.append(svg('text', { x: 20, y: y + 38, class: 'badge-text' }, `${icon} ${seat} ${kinds.warrior ?? 0}⚔ ${others.join(' ')}`));
    g.append(row);
    y += 58;
  }
  for (const seat of board.pawns[c.id] ?? []) {
    g.append(svg('rect', { x: 10, y, width: 150, height: 44, rx: 22, class: 'badge-box', stroke: TEAM_COLOUR[extras.teams[seat] ?? seat[0]] }));
    g.append(svg('text', { x: 22, y: y + 32, class: 'badge-text' }, `V ${seat} pawn`));
    y += 50;
  }
  const dropped = (vc?.dropped ?? []).map((d: any) => `${itemName(d.item)} (${seatName(d.crafter)})`);
  const carried = (vc?.carried ?? []).map((k: any) => `${seatName(k.carrier)} carries ${k.items.map((d: any) => itemName(d.item)).join(', ')}`);
  const notes = [...(dropped.length ? [`dropped: ${dropped.join(', ')}`] : []), ...carried];
  for (const note of notes) {
    g.append(svg('text', { x: 16, y: y + 30, class: 'contraband' }, note));
    y += 36;
  }
  g.append(svg('title', {}, `${c.name} (${suit}), ${c.id}`));
  if (extras.onClearing) {
    const on = extras.onClearing;
    g.addEventListener('click', () => on(c.id));
  }
  root.append(g);
}

export function factionLabel(seat: any): string {
  const f = factionName(seat.faction);
  const ch = (seat.character ?? '').replace('CHARACTER_', '').replace('UNSPECIFIED', '').toLowerCase();
  return ch ? `${f} (${ch})` : f;
}

export { suitName };
