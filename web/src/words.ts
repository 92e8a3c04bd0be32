// One event in words for the match log ("A1 moved 2 warrior from autumn.hill to ...").

const say: Record<string, (e: any) => string> = {
  PIECES_PLACED: (e) => `placed ${e.count} ${e.piece} in ${e.clearing}`,
  KEEP_PLACED: (e) => `placed the keep in ${e.clearing}`,
  PIECES_MOVED: (e) => `moved ${e.count} ${e.piece} ${e.clearing} → ${e.to}`,
  PIECES_REMOVED: (e) => `lost ${e.count} ${e.piece} in ${e.clearing}${e.target ? ' to ' + e.target : ''}`,
  SCORED: (e) => `scored ${e.amount} for team ${e.target}${e.text ? ' (' + e.text + ')' : ''}`,
  BATTLE_STARTED: (e) => `attacked ${e.target} in ${e.clearing}`,
  DICE_ROLLED: (e) => `rolled ${(e.values ?? []).join(' and ')}`,
  CARD_CRAFTED: (e) => `crafted ${(e.cards ?? []).join(', ')}${e.piece ? ' (' + e.piece + ')' : ''}`,
  CARDS_DRAWN: (e) => `drew ${e.count} card${e.count === 1 ? '' : 's'}`,
  CARDS_DISCARDED: (e) => `discarded ${(e.cards ?? []).length || e.count} card(s)`,
  BRIDGE_CROSSED: (e) => `crossed the bridge ${e.clearing} → ${e.to}`,
  PAWN_MOVED: (e) => `moved the pawn ${e.clearing} → ${e.to}`,
  PAWN_PLACED: (e) => `placed the pawn in ${e.to}`,
  TURN_STARTED: () => 'started the turn',
  ROUND_STARTED: (e) => `round ${e.count} started`,
  DECISION_REQUESTED: (e) => `must decide: ${e.text}`,
  GAME_ENDED: (e) => `game over: ${e.text === 'draw' ? 'a draw' : 'team ' + e.text + ' wins'} (${(e.values ?? []).join(' – ')})`,
  WOOD_SPENT: (e) => `spent ${(e.clearings ?? []).length} wood`,
  LEADER_CHOSEN: (e) => `chose the leader ${e.piece}`,
  DECREE_ADDED: (e) => `added a card to the Decree (${e.piece})`,
};

const QUIET = new Set(['STEP_SET', 'ACTIONS_CHANGED', 'ONCE_USED', 'DECISION_CLOSED', 'BATTLE_STAGE', 'HITS_SET', 'DECK_SHUFFLED']);

export function inWords(event: any): string | null {
  const kind = String(event.kind).replace('EVENT_KIND_', '');
  if (QUIET.has(kind)) return null;
  const f = say[kind];
  return f ? f(event) : kind.toLowerCase().replace(/_/g, ' ');
}

export function clearingsOf(event: any): string[] {
  return [event.clearing, event.to, ...(event.clearings ?? [])].filter((c: string) => c && c.includes('.'));
}
