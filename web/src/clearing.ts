// One clearing of the board: its box in the suit's colour, name and priority, suit, building
// slots, ruin, the ruling team's ring, each seat's pieces as symbols behind the seat's tag,
// Vagabond pawns and contraband; and the same in words for its accessible name.

import type { ClearingData, ClearingView } from './contract';
import { CLEARING_H, CLEARING_W, Place } from './layout';
import { Board, itemName, seatName, teamName } from './model';
import { building, kindWord, pawn, seatTag, TEAM_COLOUR, warrior } from './pieces';
import { svg } from './svg';

const SUIT_FILL: Record<string, string> = { fox: '#f4c2a8', rabbit: '#f6e7a6', mouse: '#e9c6d6', bird: '#cfe3f5' };
const ROW = 62;
const PAD = 14;
const GROW = 1.2; // the seat rows are drawn 1.2 times their symbols' own size
const TOP_OF_ROWS = 128;
const ROW_W = (CLEARING_W - 2 * PAD) / GROW;

export interface ClearingExtras {
  factions: Record<string, string>;
  teams: Record<string, string>;
  targets?: Set<string>;
}

/** The clearing's contents in words: its accessible name and tooltip. */
export function clearingWords(c: ClearingData, suit: string, board: Board, vc: ClearingView | undefined): string {
  const parts = [`${c.priority}. ${c.name}`, suit || 'no suit'];
  if (vc) parts.push(`${vc.open_slots} of ${c.slots} slots open`);
  if (vc?.ruin) parts.push(`ruin with ${vc.ruin_items} items`);
  else if (c.ruin && !vc) parts.push('ruin');
  const ruler = teamName(vc?.ruler);
  if (ruler) parts.push(`ruled by team ${ruler}`);
  const pieces = board.clearings[c.id] ?? {};
  for (const seat of Object.keys(pieces).sort()) {
    const kinds = pieces[seat];
    parts.push(`${seat}: ` + Object.keys(kinds).sort().map((k) => `${kinds[k]} ${kindWord(k)}`).join(', '));
  }
  for (const seat of board.pawns[c.id] ?? []) parts.push(`Vagabond pawn ${seat}`);
  for (const d of vc?.dropped ?? []) parts.push(`dropped contraband ${itemName(d.item)} of ${seatName(d.crafter)}`);
  for (const k of vc?.carried ?? []) parts.push(`${seatName(k.carrier)} carries ${k.items.map((d) => itemName(d.item)).join(', ')}`);
  return parts.join('; ');
}

export function drawClearing(c: ClearingData, p: Place, suit: string, board: Board, vc: ClearingView | undefined, extras: ClearingExtras): SVGElement {
  const g = svg('g', { class: 'clearing', 'data-clearing': c.id, transform: `translate(${p.x - CLEARING_W / 2},${p.y - CLEARING_H / 2})` });
  const box = svg('rect', { width: CLEARING_W, height: CLEARING_H, rx: 30, fill: SUIT_FILL[suit] ?? '#eee', class: extras.targets?.has(c.id) ? 'box target' : 'box' });
  const ruler = teamName(vc?.ruler);
  const ring = ruler ? svg('rect', { x: -12, y: -12, width: CLEARING_W + 24, height: CLEARING_H + 24, rx: 40, class: 'ruler', stroke: TEAM_COLOUR[ruler] }) : null;
  if (ring) g.append(ring);
  g.append(box);
  g.append(svg('text', { x: PAD + 2, y: 54, class: 'cname' }, `${c.priority} ${c.name}`));
  g.append(svg('text', { x: PAD + 2, y: 110, class: 'csuit' }, suit || '?'));
  const slots = c.slots;
  const open = vc ? vc.open_slots : slots;
  for (let i = 0; i < slots; i++) {
    g.append(svg('rect', { x: 190 + i * 38, y: 78, width: 30, height: 30, rx: 4, class: i < slots - open ? 'slot used' : 'slot' }));
  }
  if (vc ? vc.ruin : c.ruin) {
    g.append(ruinBadge(CLEARING_W - PAD - 118, 66, vc ? String(vc.ruin_items) : ''));
  }
  const rows = svg('g', { class: 'contents', transform: `translate(${PAD},${TOP_OF_ROWS}) scale(${GROW})` });
  g.append(rows);
  const y = TOP_OF_ROWS + drawContents(rows, c, board, vc, extras) * GROW;
  if (y > CLEARING_H) {
    box.setAttribute('height', String(y));
    ring?.setAttribute('height', String(y + 24));
  }
  return g;
}

/** A ruin: a temple drawn in white on brown, and how many items lie under it. */
function ruinBadge(x: number, y: number, items: string): SVGElement {
  const g = svg('g', { class: 'ruin-badge' });
  g.append(svg('rect', { x, y, width: 118, height: 56, rx: 8 }));
  g.append(svg('path', { d: `M${x + 10} ${y + 22} l24 -14 l24 14 z M${x + 14} ${y + 26} h8 v18 h-8 z M${x + 30} ${y + 26} h8 v18 h-8 z M${x + 46} ${y + 26} h8 v18 h-8 z M${x + 10} ${y + 46} h48 v5 h-48 z`, class: 'ruin-icon' }));
  if (items) g.append(svg('text', { x: x + 66, y: y + 45, class: 'ruin' }, items));
  return g;
}

/** Seat rows, pawns and contraband, wrapping within the box; returns the height used. */
function drawContents(g: SVGElement, c: ClearingData, board: Board, vc: ClearingView | undefined, extras: ClearingExtras): number {
  let y = 0;
  const pieces = board.clearings[c.id] ?? {};
  for (const seat of Object.keys(pieces).sort()) {
    const kinds = pieces[seat];
    const faction = extras.factions[seat] ?? '';
    const row = svg('g', { class: 'badge', 'data-seat': seat });
    row.append(seatTag(0, y, seat, extras.teams[seat] ?? seat[0], faction));
    let x = 148;
    const place = (width: number): number => {
      if (x + width > ROW_W) { x = 148; y += ROW; }
      const at = x;
      x += width;
      return at;
    };
    for (const kind of Object.keys(kinds).sort((a, b) => (a === 'warrior' ? -1 : b === 'warrior' ? 1 : a.localeCompare(b)))) {
      const count = kinds[kind];
      const label = count > 1 || kind === 'warrior' ? `${count}` : '';
      const at = place(50 + label.length * 28 + 12);
      const symbol = kind === 'warrior' ? warrior(at, y, faction) : building(at, y, kind, faction);
      symbol.append(svg('title', {}, `${seat}: ${count} ${kindWord(kind)}`));
      row.append(symbol);
      if (label) row.append(svg('text', { x: at + 50, y: y + 44, class: 'count' }, label));
    }
    g.append(row);
    y += ROW;
  }
  for (const seat of board.pawns[c.id] ?? []) {
    g.append(pawn(0, y, seat, extras.teams[seat] ?? seat[0]));
    y += ROW;
  }
  // one line per piece of contraband, short enough for the box: whose craft lies here, who carries what
  const notes = [
    ...(vc?.dropped ?? []).map((d) => `◆ ${itemName(d.item)} (${seatName(d.crafter)})`),
    ...(vc?.carried ?? []).flatMap((k) => k.items.map((d) => `◆ ${seatName(k.carrier)} has ${itemName(d.item)}`)),
  ];
  for (const note of notes) {
    g.append(svg('text', { x: 0, y: y + 44, class: 'contraband' }, note));
    y += 56;
  }
  return y + 4;
}
