// The seat's legal commands arranged for choosing, not listed: a move is source clearing ->
// destination -> how many, anything else done in a clearing sits in that clearing's menu, a
// decision's answers stand by the prompt, and the rest is grouped by verb (CommandVerb).  No
// list offered at once holds more than CHOICES_MAX entries: a longer one is split by the first
// field its commands differ in, and pages past that.  Pure: no DOM here.

import type { LegalCommand } from './contract';

export type Legal = LegalCommand;

export const CHOICES_MAX = 15;

// The verbs in the order the panel shows their groups, with a heading each.
export const VERBS: [string, string][] = [
  ['COMMAND_VERB_DECISION_ANSWER', 'Answer'],
  ['COMMAND_VERB_PLACE', 'Place'],
  ['COMMAND_VERB_MOVE', 'Move'],
  ['COMMAND_VERB_BATTLE', 'Battle'],
  ['COMMAND_VERB_BUILD', 'Build'],
  ['COMMAND_VERB_RECRUIT', 'Recruit'],
  ['COMMAND_VERB_CRAFT', 'Craft'],
  ['COMMAND_VERB_CARD_EFFECT', 'Card effects'],
  ['COMMAND_VERB_FACTION_ACTION', 'Faction actions'],
  ['COMMAND_VERB_DISCARD', 'Discard'],
  ['COMMAND_VERB_END_PHASE', 'End'],
  ['COMMAND_VERB_UNSPECIFIED', 'Other'],
];

export const verbOf = (c: Legal): string => c.verb ?? 'COMMAND_VERB_UNSPECIFIED';
export const isMove = (c: Legal): boolean => !!c.command?.clearing && !!c.command?.to && verbOf(c) === 'COMMAND_VERB_MOVE';

// Where on the map a command is chosen: a move at its source (or, from a forest, at its
// destination), anything else at its clearing; '' when it has no place on the map.
export function anchorOf(c: Legal, onMap: Set<string>): string {
  const cmd = c.command ?? {};
  if (isMove(c)) return onMap.has(cmd.clearing ?? '') ? cmd.clearing ?? '' : onMap.has(cmd.to ?? '') ? cmd.to ?? '' : '';
  if (verbOf(c) === 'COMMAND_VERB_DECISION_ANSWER' || verbOf(c) === 'COMMAND_VERB_END_PHASE') return '';
  return onMap.has(cmd.clearing ?? '') ? cmd.clearing ?? '' : '';
}

export interface Arranged {
  byClearing: Map<string, Legal[]>; // what the map offers, per clearing
  answers: Legal[]; // a decision's answers
  ends: Legal[]; // ending the step
  byVerb: Map<string, Legal[]>; // the rest, per verb
}

export function arrange(legal: Legal[], onMap: Set<string>): Arranged {
  const out: Arranged = { byClearing: new Map(), answers: [], ends: [], byVerb: new Map() };
  for (const c of legal) {
    const at = anchorOf(c, onMap);
    if (at) out.byClearing.set(at, [...(out.byClearing.get(at) ?? []), c]);
    else if (verbOf(c) === 'COMMAND_VERB_DECISION_ANSWER') out.answers.push(c);
    else if (verbOf(c) === 'COMMAND_VERB_END_PHASE') out.ends.push(c);
    else out.byVerb.set(verbOf(c), [...(out.byVerb.get(verbOf(c)) ?? []), c]);
  }
  return out;
}

// A clearing's moves by destination (moves out of it; a move into it from a forest is listed
// under its source forest).
export function movesFrom(here: Legal[], clearing: string): Map<string, Legal[]> {
  const out = new Map<string, Legal[]>();
  for (const c of here) {
    if (!isMove(c)) continue;
    const cmd = c.command ?? {};
    const other = cmd.clearing === clearing ? cmd.to ?? '' : cmd.clearing ?? '';
    out.set(other, [...(out.get(other) ?? []), c]);
  }
  return out;
}

// One entry of a list offered at once: either a command, or a group that opens a shorter list.
export type Choice = { label: string; legal: Legal } | { label: string; group: Legal[] };

const FIELDS: ((c: Legal) => string)[] = [
  (c) => String(c.command?.count ?? ''),
  (c) => c.command?.target ?? '',
  (c) => c.command?.piece ?? '',
  (c) => c.command?.clearing ?? '',
  (c) => c.command?.to ?? '',
  (c) => (c.command?.cards ?? [])[0] ?? '',
  (c) => (c.cost?.card_ids ?? [])[0] ?? '',
];

// The commands as at most CHOICES_MAX entries (before paging): all of them when few; else
// groups by the first field that splits them into 2..CHOICES_MAX groups; else all, to be paged.
export function choicesOf(cmds: Legal[], labelOf: (c: Legal) => string, groupLabel: (field: number, value: string, n: number) => string): Choice[] {
  if (cmds.length <= CHOICES_MAX) return cmds.map((c) => ({ label: labelOf(c), legal: c }));
  for (const [i, f] of FIELDS.entries()) {
    const groups = new Map<string, Legal[]>();
    for (const c of cmds) groups.set(f(c), [...(groups.get(f(c)) ?? []), c]);
    if (groups.size < 2 || groups.size > CHOICES_MAX) continue;
    return [...groups].map(([value, g]) => (g.length === 1 ? { label: labelOf(g[0]), legal: g[0] } : { label: groupLabel(i, value, g.length), group: g }));
  }
  return cmds.map((c) => ({ label: labelOf(c), legal: c }));
}

// A page of a long list: CHOICES_MAX - 1 entries and whether a next page follows.
export function page<T>(items: T[], n: number): { items: T[]; more: boolean } {
  if (items.length <= CHOICES_MAX) return { items, more: false };
  const size = CHOICES_MAX - 1;
  const start = (n * size) % items.length;
  return { items: items.slice(start, start + size), more: true };
}

// Every command reachable through the arrangement (the page checks that none is lost).
export function reachable(a: Arranged): number {
  let n = a.answers.length + a.ends.length;
  for (const cmds of a.byClearing.values()) n += cmds.length;
  for (const cmds of a.byVerb.values()) n += cmds.length;
  return n;
}

// What makes two commands "the same again" in different clearings: their kind and piece (a
// workshop build repeats as a workshop build, a recruit as a recruit).
export const againKey = (c: Legal): string => `${c.command?.kind ?? ''}|${c.command?.piece ?? ''}|${verbOf(c)}`;

// Whether a tap elsewhere may repeat the command: one done in a clearing that is no move and
// no battle (a battle's target is a choice of its own each time).
export function repeatable(c: Legal, onMap: Set<string>): boolean {
  const verb = verbOf(c);
  return !!anchorOf(c, onMap) && !isMove(c) && verb !== 'COMMAND_VERB_BATTLE';
}
