// Everything around the map: the score track, the round and turn strip, deck and discard,
// each seat's board, the viewer's hand, the score chart.

import { factionLabel, TEAM_COLOUR } from './board';
import type { CardData, View } from './contract';
import { itemName, seatName, suitName, teamName } from './model';
import { capitalized, humane, Names } from './names';
import { html, svg } from './svg';

const TURN_ORDER = ['A1', 'B1', 'A2', 'B2', 'A3', 'B3'];

// What the track and the strip read: a served view, or (replaying) what the events told, where
// the deck's size is unknown ('—') and the round limit comes from the match's facts.
export type TrackFacts = Pick<View, 'score_a' | 'score_b'> & Partial<Pick<View, 'seats'>>;
export type StripFacts = Partial<Pick<View, 'round' | 'turn_seat' | 'to_act' | 'decision' | 'step' | 'phase' | 'discard' | 'winner'>>
  & { deck_count?: number | string; max_rounds?: number };

// Each team's track, 0 to 90, split by seat.  A seat below zero (points lost) takes no room on
// the track: it is listed after it with its score, and the team total is shown as it is.
export function scoreTrack(view: TrackFacts): HTMLElement {
  const box = html('div', { class: 'score-track', 'aria-label': 'score track 0 to 90' });
  for (const team of ['A', 'B']) {
    const total = Number(team === 'A' ? view.score_a : view.score_b) || 0;
    const bar = html('div', { class: 'track' });
    const below: string[] = [];
    for (const s of view.seats ?? []) {
      const vp = Number(s.vp) || 0;
      if (teamName(s.team) !== team || !vp) continue;
      if (vp < 0) { below.push(`${seatName(s.seat)} ${vp}`); continue; }
      const part = html('span', { class: 'part', style: `width:${Math.min(100, (100 * vp) / 90)}%;background:${TEAM_COLOUR[team]}`, title: `${seatName(s.seat)} ${vp}` }, `${seatName(s.seat)} ${vp}`);
      bar.append(part);
    }
    const row = html('div', { class: 'track-row', 'data-team': team }, html('b', {}, `Team ${team}: ${total}`), bar);
    if (below.length) row.append(html('span', { class: 'below-zero' }, `below zero: ${below.join(', ')}`));
    box.append(row);
  }
  return box;
}

export function turnStrip(view: StripFacts, lineupSeats: string[], names?: Names): HTMLElement {
  const strip = html('div', { class: 'turn-strip' });
  strip.append(html('span', { class: 'round' }, `Round ${view.round ?? 0} of ${view.max_rounds ?? ''}`.replace(/ of $/, '')));
  const turn = seatName(view.turn_seat);
  const acting = seatName(view.to_act);
  const decision = view.decision && seatName(view.decision.seat) ? view.decision : null;
  for (const seat of TURN_ORDER) {
    if (!lineupSeats.includes(seat)) continue;
    const classes = ['seat', `team-${seat[0]}`];
    if (seat === turn) classes.push('turn');
    if (seat === acting) classes.push('acting');
    const cell = html('span', { class: classes.join(' '), 'data-seat': seat }, seat);
    if (decision && seatName(decision.seat) === seat) cell.append(html('small', {}, ` decides: ${humane(decision.kind ?? '')}`));
    strip.append(cell);
  }
  const stepWords = humane(String(view.step ?? '').split('.').slice(1).join(' '));
  strip.append(html('span', { class: 'deck' }, `deck ${view.deck_count} · discard ${(view.discard ?? []).length} · ${view.phase ?? ''}${stepWords && stepWords !== view.phase ? ': ' + stepWords : ''}`));
  if (names && seatName(view.turn_seat)) strip.append(html('span', { class: 'turn-of' }, ` · turn of ${names.seat(view.turn_seat)}`));
  if (view.winner) strip.append(html('strong', { class: 'winner', id: 'winner' }, `Winner: ${view.winner === 'draw' ? 'a draw' : 'team ' + view.winner}`));
  return strip;
}

export function seatBoards(view: View, cards: Record<string, CardData>, names?: Names): HTMLElement {
  const cardName = (c: string): string => cards[c]?.name ?? (names ? names.card(c) : c);
  const box = html('div', { class: 'seat-boards' });
  for (const s of view.seats) {
    const seat = seatName(s.seat);
    const team = teamName(s.team);
    const card = html('div', { class: 'seat-board', style: `border-color:${TEAM_COLOUR[team]}`, 'data-seat': seat });
    card.append(html('h4', {}, `${seat} · ${factionLabel(s)} · ${s.vp} VP`));
    const lines: string[] = [`hand ${s.hand_count}`];
    if (s.crafted_items.length) lines.push(`crafted: ${s.crafted_items.map(itemName).join(', ')}`);
    if (s.play_area.length) lines.push(`in play: ${s.play_area.map(cardName).join(', ')}`);
    const supply = s.supply.map((p) => `${humane(p.kind)} ${p.count}`).join(', ');
    if (supply) lines.push(`supply: ${supply}`);
    if (s.eyrie) {
      lines.push(`leader: ${s.eyrie.leader ? `the ${capitalized(humane(s.eyrie.leader))}` : '—'}`);
      for (const col of s.eyrie.decree) lines.push(`Decree ${col.column}: ${col.cards.map(cardName).join(', ') || '—'}`);
    }
    if (s.alliance) {
      const sup = s.alliance.supporters.length ? ` (${s.alliance.supporters.map(cardName).join(', ')})` : '';
      lines.push(`supporters ${s.alliance.supporters_count}${sup} · officers ${s.alliance.officers}`);
      lines.push(`bases left: ${s.alliance.bases_left.map(suitName).join(', ') || 'none'}`);
    }
    if (s.vagabond) {
      const v = s.vagabond;
      lines.push(`at ${names ? names.place(v.location) : v.location} · items ${v.item_load}/${v.item_limit}`);
      lines.push('items: ' + v.items.map((i) => itemName(i.item) + (i.damaged ? ' (damaged)' : '') + (i.exhausted ? ' (exhausted)' : '')).join(', '));
      lines.push('relationships: ' + v.relationships.map((r) => `${seatName(r.seat)} ${r.level}`).join(', '));
    }
    for (const l of lines) card.append(html('div', {}, l));
    box.append(card);
  }
  return box;
}

export function handOf(view: View, cards: Record<string, CardData>): HTMLElement {
  const me = view.seats.find((s) => s.seat === view.viewer);
  const box = html('div', { class: 'hand', id: 'hand' });
  if (!me) return box;
  box.append(html('h3', {}, `Your hand (${me.hand.length})`));
  for (const id of me.hand) {
    const c = cards[id];
    box.append(html('span', { class: `card suit-${suitName(c?.suit)}`, title: c?.text ?? '' }, `${c?.name ?? id} (${suitName(c?.suit)})`));
  }
  return box;
}

export function scoreChart(perRound: { round: number; a: number; b: number }[]): SVGSVGElement {
  const root = svg('svg', { viewBox: '0 0 320 140', class: 'chart', role: 'img', 'aria-label': 'score per round' }) as SVGSVGElement;
  const max = Math.max(10, ...perRound.map((r) => Math.max(r.a, r.b)));
  const xOf = (i: number) => 30 + (i * 280) / Math.max(1, perRound.length - 1);
  const yOf = (v: number) => 120 - (v * 100) / max;
  root.append(svg('line', { x1: 30, y1: 120, x2: 310, y2: 120, class: 'axis' }));
  for (const team of ['a', 'b'] as const) {
    const pts = perRound.map((r, i) => `${xOf(i)},${yOf(r[team])}`).join(' ');
    root.append(svg('polyline', { points: pts, fill: 'none', stroke: TEAM_COLOUR[team.toUpperCase()], 'stroke-width': 3 }));
  }
  perRound.forEach((r, i) => root.append(svg('text', { x: xOf(i), y: 136, 'text-anchor': 'middle', class: 'tick' }, `R${r.round}`)));
  root.append(svg('text', { x: 4, y: 16, class: 'tick' }, `${max}`));
  return root;
}
