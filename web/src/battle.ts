// What the seat is asked and why, in words: the battle being fought (attacker, defender,
// warriors, dice, hits, ambush) from the view's BattleView, and the prompt above the choices
// (whose turn, the step, actions left, the open decision with its context).

import { humane, Names } from './names';
import { seatName } from './model';
import { html } from './svg';

import type { View } from './contract';

// The view these panels read (proto View, BattleView and DecisionView as JSON).
export type ViewFacts = Partial<View>; // a page before its first view reads an empty one
type DecisionFacts = NonNullable<View['decision']>;

function warriorsOf(view: ViewFacts, clearing: string | undefined, seat: string | undefined): number {
  const c = (view.clearings ?? []).find((x) => x.id === clearing);
  return (c?.pieces ?? []).find((p) => seatName(p.seat) === seatName(seat))?.warriors ?? 0;
}

export function battlePanel(view: ViewFacts, names: Names): HTMLElement | null {
  const b = view.battle;
  if (!b || !seatName(b.attacker)) return null;
  const me = seatName(view.viewer);
  const who = (s: string | undefined) => (seatName(s) === me && me ? `you (${seatName(s)})` : names.seat(s));
  const box = html('section', { class: 'battle', id: 'battle', 'aria-live': 'polite' },
    html('h3', {}, `Battle in ${names.place(b.clearing)}`));
  const row = (k: string, v: string) => box.append(html('div', { class: 'battle-row' }, html('b', {}, k + ' '), v));
  row('Attacker:', `${who(b.attacker)} with ${warriorsOf(view, b.clearing, b.attacker)} warriors`);
  row('Defender:', `${who(b.defender)} with ${warriorsOf(view, b.clearing, b.defender)} warriors`);
  row('Stage:', humane(b.stage ?? ''));
  if (b.ambush) row('Ambush:', names.card(b.ambush));
  if ((b.dice ?? []).length) row('Dice:', (b.dice ?? []).join(' and '));
  const toDef = (b.hits_to_defender ?? 0) + (b.extra_to_defender ?? 0);
  const toAtt = (b.hits_to_attacker ?? 0) + (b.extra_to_attacker ?? 0);
  if ((b.dice ?? []).length || toDef || toAtt) {
    row('Hits:', `${seatName(b.attacker)} deals ${toDef}${b.extra_to_defender ? ` (${b.extra_to_defender} extra)` : ''}, ${seatName(b.defender)} deals ${toAtt}${b.extra_to_attacker ? ` (${b.extra_to_attacker} extra)` : ''}`);
  }
  if (b.looting) row('Looting:', 'declared');
  if ((b.effects_used ?? []).length) row('Used:', (b.effects_used ?? []).map((u) => { const [s, e] = u.split(':'); return `${humane(e ?? '')} (${names.seat(s)})`; }).join(', '));
  return box;
}

// "B1 (Marquise) with 3 warriors": a side of the battle as the prompt names it.
function side(v: ViewFacts, n: Names, seat: string | undefined, clearing: string | undefined): string {
  const w = warriorsOf(v, clearing, seat);
  return `${n.seat(seat)} with ${w} warrior${w === 1 ? '' : 's'}`;
}

function mine(v: ViewFacts, clearing: string | undefined): string {
  const w = warriorsOf(v, clearing, v.viewer);
  return `you have ${w} warrior${w === 1 ? '' : 's'} there`;
}

const ASKED: Record<string, (d: DecisionFacts, n: Names, v: ViewFacts) => string> = {
  ambush: (d, n, v) => {
    const at = d.clearing || v.battle?.clearing;
    return `${side(v, n, v.battle?.attacker ?? d.target, at)} attacks you in ${n.place(at)} (${mine(v, at)}): play an ambush card, or decline?`;
  },
  foil: (d, n, v) => {
    const at = d.clearing || v.battle?.clearing;
    return `${n.seat(v.battle?.defender ?? d.target)} ambushes your attack in ${n.place(at)} (${mine(v, at)}): foil it with an ambush card of your own, or decline?`;
  },
  battle_effects: (d, n) => `Battle in ${n.place(d.clearing)}: use a battle effect, or decline?`,
  allocate_hits: (d, n, v) => {
    const b = v.battle;
    const from = b ? (seatName(b.attacker) === seatName(v.viewer) ? b.defender : b.attacker) : d.target;
    return `You take hits in ${n.place(d.clearing)}${from ? ' from ' + n.seat(from) : ''}: ${d.count ?? 0} left to take (${mine(v, d.clearing)}). Choose the next piece you lose.`;
  },
  field_hospitals: (d, n) => `${d.count ?? 0} warriors of yours were removed in ${n.place(d.clearing)}: pay a matching card to return them to the keep, or decline?`,
  feed_eyrie: (d, n) => `Your team's Eyrie is owed a card${d.target ? ' (' + n.seat(d.target) + ')' : ''}: choose the card.`,
  eyrie_leader: () => 'Choose the Eyrie\'s new leader.',
  recruit: (d, n) => `Place your recruits${d.clearing ? ' in ' + n.place(d.clearing) : ''}.`,
  outrage: (d, n) => `Outrage in ${n.place(d.clearing)}: give ${n.seat(d.target) || 'the Alliance'} a matching card.`,
  supporters_limit: (d) => `Too many supporters: discard ${d.count ?? 0}.`,
  damage_items: (d) => `Your Vagabond takes hits: choose the items damaged (${d.count ?? 0} left).`,
  intervention: (d, n) => `Your team's Vagabond fights in ${n.place(d.clearing)}: intervene?`,
};

export function promptText(view: ViewFacts, names: Names, hasLegal: boolean): string {
  if (view.winner) return 'The match is over.';
  const me = seatName(view.viewer);
  const d = view.decision;
  const kind = (d?.kind ?? '').toLowerCase();
  if (hasLegal && d && seatName(d.seat) === me && kind) {
    const f = ASKED[kind];
    return f ? f(d, names, view) : `Decide: ${humane(kind)}${d.clearing ? ' in ' + names.place(d.clearing) : ''}.`;
  }
  if (!hasLegal) {
    if (d && seatName(d.seat)) return `Waiting for ${names.seat(d.seat)} to decide: ${humane(kind)}.`;
    return `Waiting for ${names.seat(view.turn_seat) || 'the other seats'} (${humane(view.step ?? '')}).`;
  }
  const step = humane((view.step ?? '').split('.').slice(1).join(' ') || view.phase || '');
  const left = [view.actions ? `${view.actions} action${view.actions === 1 ? '' : 's'} left` : '', view.march_left ? `${view.march_left} march move${view.march_left === 1 ? '' : 's'} left` : ''].filter(Boolean).join(', ');
  return `Your turn — ${humane(view.phase ?? '')}: ${step}${left ? ' · ' + left : ''}. Click a highlighted clearing, or choose below.`;
}
