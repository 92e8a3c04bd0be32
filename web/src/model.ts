// The board as the page draws it: per clearing, per seat, piece kind -> count, plus pawns,
// scores and round.  Built from a served View, or (for the replay scrubber) from the opening
// view plus the events, by the recipe the contract documents (docs/bots.md, "8. Follow a
// match from its start"): placed / moved / removed pieces, wood spent, points scored.  No rules here.

import type { Envelope, View } from './contract';

export type * from './contract'; // the contract's types, for the page's other modules

export type Pieces = Record<string, Record<string, number>>; // seat -> kind -> count
export interface Board {
  clearings: Record<string, Pieces>;
  pawns: Record<string, string[]>;
  scoreA: number;
  scoreB: number;
  round: number;
  version: number;
  winner: string;
}

export const seatName = (s: string | undefined): string => (s ?? '').replace('SEAT_', '').replace('UNSPECIFIED', '');
export const teamName = (t: string | undefined): string => (t ?? '').replace('TEAM_', '').replace('UNSPECIFIED', '');
export const suitName = (s: string | undefined): string => (s ?? '').replace('SUIT_', '').replace('UNSPECIFIED', '').toLowerCase();
export const itemName = (s: string | undefined): string => (s ?? '').replace('ITEM_', '').toLowerCase();
export const factionName = (s: string | undefined): string => (s ?? '').replace('FACTION_', '').toLowerCase();

export function boardOfView(view: View): Board {
  const clearings: Record<string, Pieces> = {};
  const pawns: Record<string, string[]> = {};
  for (const c of view.clearings ?? []) {
    const pieces: Pieces = {};
    for (const p of c.pieces) {
      const kinds: Record<string, number> = {};
      if (p.warriors) kinds.warrior = p.warriors;
      for (const b of [...p.buildings, ...p.tokens]) if (b.count) kinds[b.kind] = b.count;
      if (Object.keys(kinds).length) pieces[seatName(p.seat)] = kinds;
    }
    clearings[c.id] = pieces;
    pawns[c.id] = c.pawns.map(seatName).sort();
  }
  // A pawn in a forest is in no clearing's list: its seat board says where it stands.
  for (const s of view.seats) {
    const at = s.vagabond?.location;
    if (at && !(at in clearings)) pawns[at] = [...(pawns[at] ?? []), seatName(s.seat)].sort();
  }
  return {
    clearings, pawns, scoreA: view.score_a, scoreB: view.score_b,
    round: view.round, version: Number(view.version), winner: view.winner,
  };
}

function add(board: Board, clearing: string, seat: string, kind: string, n: number): void {
  const pieces = (board.clearings[clearing] ??= {});
  const kinds = (pieces[seat] ??= {});
  kinds[kind] = (kinds[kind] ?? 0) + n;
  if (kinds[kind] <= 0) delete kinds[kind];
  if (!Object.keys(kinds).length) delete pieces[seat];
}

function movePawn(board: Board, seat: string, to: string): void {
  for (const id of Object.keys(board.pawns)) board.pawns[id] = board.pawns[id].filter((s) => s !== seat);
  if (to) board.pawns[to] = [...(board.pawns[to] ?? []), seat].sort(); // a clearing or a forest
}

// An event's fields may be absent (a command's events come compact): absent is the default.
export function applyEvent(board: Board, envelope: Envelope): void {
  const e = envelope.event ?? {};
  const seat = e.seat ?? '';
  const [clearing, to, piece, count] = [e.clearing ?? '', e.to ?? '', e.piece ?? '', e.count ?? 0];
  board.version = Number(envelope.state_version ?? board.version);
  switch (e.kind) {
    case 'EVENT_KIND_PIECES_PLACED':
    case 'EVENT_KIND_KEEP_PLACED': add(board, clearing, seat, piece, count); break;
    case 'EVENT_KIND_PIECES_MOVED': add(board, clearing, seat, piece, -count); add(board, to, seat, piece, count); break;
    case 'EVENT_KIND_PIECES_REMOVED': add(board, clearing, seat, piece, -count); break;
    case 'EVENT_KIND_WOOD_SPENT': for (const c of e.clearings ?? []) add(board, c, seat, 'wood', -1); break;
    case 'EVENT_KIND_SCORED': if (e.target === 'A') board.scoreA += e.amount ?? 0; else if (e.target === 'B') board.scoreB += e.amount ?? 0; break;
    case 'EVENT_KIND_ROUND_STARTED': board.round = count; break;
    case 'EVENT_KIND_PAWN_PLACED': case 'EVENT_KIND_PAWN_MOVED': movePawn(board, seat, to); break;
    case 'EVENT_KIND_GAME_ENDED': board.winner = e.text ?? ''; break;
  }
}

export function cloneBoard(b: Board): Board {
  return JSON.parse(JSON.stringify(b)) as Board;
}
