// One event in words for the match log ("moved 2 warriors Hill → Creek"), with the names of
// clearings, cards and seats (never their ids: every line goes through Names.scrub).

import { humane, Names } from './names';

import type { GameEvent } from './contract';

const plural = (n: number, word: string): string => `${n} ${humane(word)}${n === 1 || word.endsWith('s') ? '' : 's'}`;
const cardCount = (e: GameEvent): number => e.count || (e.cards ?? []).length;

type Say = (e: GameEvent, n: Names) => string;
const say: Record<string, Say> = {
  PIECES_PLACED: (e, n) => `placed ${plural(e.count ?? 0, e.piece ?? 'piece')} in ${n.place(e.clearing)}`,
  KEEP_PLACED: (e, n) => `placed the keep in ${n.place(e.clearing)}`,
  PIECES_MOVED: (e, n) => `moved ${plural(e.count ?? 0, e.piece ?? 'piece')} ${n.place(e.clearing)} → ${n.place(e.to)}`,
  PIECES_REMOVED: (e, n) => `lost ${plural(e.count ?? 0, e.piece ?? 'piece')} in ${n.place(e.clearing)}${e.target ? ' to ' + n.seat(e.target) : ''}`,
  SCORED: (e) => `scored ${e.amount ?? 0} for team ${e.target}${e.text ? ' (' + e.text + ')' : ''}`,
  BATTLE_STARTED: (e, n) => `attacked ${n.seat(e.target)} in ${n.place(e.clearing)}`,
  BATTLE_ENDED: () => 'the battle ended',
  AMBUSH_PLAYED: (e, n) => `played an ambush: ${n.cardList(e.cards)}`,
  AMBUSH_FOILED: (e, n) => `foiled the ambush with ${n.cardList(e.cards)}`,
  DICE_ROLLED: (e) => `rolled ${(e.values ?? []).join(' and ')}`,
  EFFECT_USED: (e, n) => `used ${humane(e.piece ?? 'an effect')}${(e.cards ?? []).length ? ' (' + n.cardList(e.cards) + ')' : ''}`,
  CARD_CRAFTED: (e, n) => `crafted ${n.cardList(e.cards)}${e.piece ? ' (' + humane(e.piece) + ')' : ''}`,
  CARDS_DRAWN: (e, n) => (e.cards ?? []).some((c) => c !== 'hidden')
    ? `drew ${n.cardList(e.cards)}` : `drew ${plural(cardCount(e), 'card')}`,
  CARDS_DISCARDED: (e, n) => `discarded ${n.cardList(e.cards) || plural(cardCount(e), 'card')}`,
  CARD_GIVEN: (e, n) => `gave ${(e.cards ?? []).some((c) => c !== 'hidden') ? n.cardList(e.cards) : plural(cardCount(e), 'card')} to ${n.seat(e.target)}`,
  BRIDGE_CROSSED: (e, n) => `crossed the bridge ${n.place(e.clearing)} → ${n.place(e.to)}${(e.cards ?? []).length ? ', paying ' + n.cardList(e.cards) : ''}`,
  PAWN_MOVED: (e, n) => `${e.text === 'slip' ? 'slipped' : 'moved'} from ${n.place(e.clearing)} to ${n.place(e.to)}`,
  PAWN_PLACED: (e, n) => `placed the pawn in ${n.place(e.to)}`,
  TURN_STARTED: () => 'started the turn',
  ROUND_STARTED: (e) => `round ${e.count ?? 0} started`,
  DECISION_REQUESTED: (e, n) => `must decide: ${humane(e.text ?? '')}${e.target && e.target !== e.seat ? ' (about ' + n.seat(e.target) + ')' : ''}`,
  DECISION_DECLINED: (e) => `declined: ${humane(e.text ?? '')}`,
  GAME_ENDED: (e) => `game over: ${e.text === 'draw' ? 'a draw' : 'team ' + e.text + ' wins'} (${(e.values ?? []).join(' – ')})${e.piece ? ', ' + e.piece : ''}`,
  ROUND_LIMIT_REACHED: (e) => `the last round (${e.count ?? 0}) is over`,
  WOOD_SPENT: (e, n) => `spent ${plural((e.clearings ?? []).length, 'wood')} (${(e.clearings ?? []).map((c) => n.place(c)).join(', ')})`,
  LEADER_CHOSEN: (e) => `chose the leader: ${humane(e.piece ?? '')}`,
  LEADER_DEPOSED: (e) => `lost the leader ${humane(e.piece ?? '')} in Turmoil`,
  DECREE_ADDED: (e, n) => `added ${n.cardList(e.cards) || 'a card'} to the Decree (${humane(e.piece ?? '')})`,
  DECREE_CARD_SKIPPED: (e) => `skipped a ${humane(e.piece ?? '')} card of the Decree (${humane(e.text ?? '')})`,
  TURMOIL: (e) => `fell into Turmoil (${plural(e.count ?? 0, 'bird card')})`,
  SUPPORTERS_ADDED: (e, n) => `gained ${(e.cards ?? []).some((c) => c !== 'hidden') ? n.cardList(e.cards) : plural(cardCount(e), 'supporter')}`,
  SUPPORTERS_DISCARDED: (e, n) => `spent supporters: ${n.cardList(e.cards)}${e.text ? ' (' + humane(e.text) + ')' : ''}`,
  ITEMS_EXHAUSTED: (e) => `exhausted ${plural(e.count ?? 0, e.piece ?? 'item')}`,
  ITEM_REFRESHED: (e) => `refreshed the ${humane((e.piece ?? '').split('/')[0])}`,
  ITEM_DAMAGED: (e) => `had the ${humane((e.piece ?? '').split('/')[0])} damaged`,
  ITEM_REPAIRED: (e) => `repaired the ${humane((e.piece ?? '').split('/')[0])}`,
  ITEM_GAINED: (e, n) => `gained ${humane(e.piece ?? 'an item')}${e.clearing ? ' in ' + n.place(e.clearing) : ''}${e.text ? ' (' + humane(e.text) + ')' : ''}`,
  ITEM_REMOVED: (e) => `lost the ${humane((e.piece ?? '').split('/')[0])}${e.text ? ' (' + humane(e.text) + ')' : ''}`,
  RELATIONSHIP_CHANGED: (e, n) => `is now ${humane(e.text ?? '')} with ${n.seat(e.target)}`,
  QUEST_COMPLETED: (e, n) => `completed the quest ${n.quest(e.piece)}`,
  HAND_REVEALED: (e, n) => `showed the hand to ${n.seat(e.target)}`,
  CONTRABAND_DROPPED: (e, n) => `dropped contraband in ${n.place(e.clearing)}`,
  CONTRABAND_MOVED: (e, n) => `carried contraband ${n.place(e.clearing)} → ${n.place(e.to)}`,
  CONTRABAND_COLLECTED: (e, n) => `collected ${humane(e.piece ?? 'an item')} in ${n.place(e.clearing)}`,
  CONTRABAND_SEIZED: (e, n) => `seized ${humane(e.piece ?? 'an item')} in ${n.place(e.clearing)}`,
  CONTRABAND_VALIDATED: (e, n) => `brought ${humane(e.piece ?? 'an item')} home to ${n.place(e.to)}`,
  SUITS_ASSIGNED: () => 'the Winter clearings got their suits',
  MATCH_STARTED: () => 'the match started',
};

const QUIET = new Set(['STEP_SET', 'ACTIONS_CHANGED', 'ONCE_USED', 'DECISION_CLOSED', 'BATTLE_STAGE', 'HITS_SET', 'DECK_SHUFFLED']);

export function inWords(event: GameEvent, names: Names): string | null {
  const kind = String(event.kind).replace('EVENT_KIND_', '');
  if (QUIET.has(kind)) return null;
  const f = say[kind];
  return names.scrub(f ? f(event, names) : humane(kind.toLowerCase()));
}

export function clearingsOf(event: GameEvent): string[] {
  return [event.clearing, event.to, ...(event.clearings ?? [])].filter((c): c is string => !!c && c.includes('.'));
}
