// Artwork-free piece symbols: one shape per piece type (a warrior is a pawn-like figure, a
// building a square, a token a circle) filled in the faction's colour, and a seat tag in
// the team's colour with the seat's mark, so two seats of one faction differ at a glance.

import { svg } from './svg';

export const TEAM_COLOUR: Record<string, string> = { A: '#1f5fbf', B: '#b83227' };
export const FACTION_COLOUR: Record<string, string> = { marquise: '#d9772b', eyrie: '#2f7fc1', alliance: '#3f9a4a', vagabond: '#5d5d5d' };
export const FACTION_MARK: Record<string, string> = { marquise: 'M', eyrie: 'E', alliance: 'W', vagabond: 'V' };

// The letter inside a building or token, and whether the piece is a token (a circle).
const KIND_MARK: Record<string, [string, boolean]> = {
  sawmill: ['S', false], workshop: ['W', false], recruiter: ['R', false], roost: ['R', false],
  base_fox: ['F', false], base_rabbit: ['R', false], base_mouse: ['M', false],
  wood: ['w', true], keep: ['K', true], sympathy: ['S', true],
};

export const kindWord = (kind: string): string => kind.replace('base_', 'base ');

/** The seat's tag: its mark (A1) in white on the team's colour, with the faction's letter. */
export function seatTag(x: number, y: number, seat: string, team: string, faction: string): SVGElement {
  const g = svg('g', { class: 'seat-tag' });
  g.append(svg('rect', { x, y, width: 138, height: 54, rx: 10, fill: TEAM_COLOUR[team] ?? '#333' }));
  g.append(svg('text', { x: x + 10, y: y + 43, class: 'tag-text' }, `${FACTION_MARK[faction] ?? '?'} ${seat}`));
  return g;
}

/** A warrior: a head and a body, in the faction's colour. */
export function warrior(x: number, y: number, faction: string): SVGElement {
  const fill = FACTION_COLOUR[faction] ?? '#777';
  const g = svg('g', { class: 'piece warrior' });
  g.append(svg('circle', { cx: x + 22, cy: y + 13, r: 12, fill, stroke: '#222', 'stroke-width': 3 }));
  g.append(svg('path', { d: `M${x + 4} ${y + 52} L${x + 12} ${y + 26} L${x + 32} ${y + 26} L${x + 40} ${y + 52} Z`, fill, stroke: '#222', 'stroke-width': 3 }));
  return g;
}

/** A building (square) or token (circle) with its letter, in the faction's colour. */
export function building(x: number, y: number, kind: string, faction: string): SVGElement {
  const [mark, token] = KIND_MARK[kind] ?? [kind.slice(0, 1).toUpperCase(), false];
  const fill = kind === 'wood' ? '#8d5a2b' : FACTION_COLOUR[faction] ?? '#777';
  const g = svg('g', { class: token ? 'piece token' : 'piece building' });
  if (token) g.append(svg('circle', { cx: x + 24, cy: y + 27, r: 23, fill, stroke: '#222', 'stroke-width': 3 }));
  else g.append(svg('rect', { x: x + 2, y: y + 4, width: 44, height: 44, rx: 4, fill, stroke: '#222', 'stroke-width': 3 }));
  g.append(svg('text', { x: x + 24, y: y + 41, class: 'piece-mark', 'text-anchor': 'middle' }, mark));
  return g;
}

/** A Vagabond's pawn: a tall figure in the team's colour, with the seat's mark beside it. */
export function pawn(x: number, y: number, seat: string, team: string): SVGElement {
  const fill = TEAM_COLOUR[team] ?? '#333';
  const g = svg('g', { class: 'pawn', 'data-pawn': seat });
  g.append(svg('rect', { x, y, width: 190, height: 58, rx: 29, fill: '#fff', stroke: fill, 'stroke-width': 6 }));
  g.append(svg('circle', { cx: x + 30, cy: y + 17, r: 11, fill }));
  g.append(svg('path', { d: `M${x + 14} ${y + 52} L${x + 22} ${y + 28} L${x + 38} ${y + 28} L${x + 46} ${y + 52} Z`, fill }));
  g.append(svg('text', { x: x + 56, y: y + 45, class: 'pawn-text', fill }, `V ${seat}`));
  g.append(svg('title', {}, `${seat}'s Vagabond pawn`));
  return g;
}
