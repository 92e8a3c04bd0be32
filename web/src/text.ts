// The board as text: one line per clearing with its contents and paths, then one per forest
// where a pawn stands.  Read by screen readers (the page's "Text view"), and the golden format
// the browser tests compare, so it names everything as a person reads it: clearings and
// forests by name, seats with their faction, pieces in words; never an id.

import { Board } from './model';
import { humane, Names } from './names';

export interface TextClearing { id: string; name: string; adjacent_ids: string[] }

const plural = (n: number, kind: string): string => {
  const word = humane(kind);
  return `${n} ${word}${n === 1 || word.endsWith('s') ? '' : 's'}`;
};

export function textView(board: Board, names: Names, data: { clearings: TextClearing[] }, suits: Record<string, string>): string {
  const lines = [
    `Round ${board.round} · team A ${board.scoreA} · team B ${board.scoreB}` +
      (board.winner ? ` · winner team ${board.winner}` : ''),
  ];
  const pawnsOf = (at: string): string[] => (board.pawns[at] ?? []).map((seat) => `${names.seat(seat)} pawn`);
  for (const c of data.clearings) {
    const pieces = board.clearings[c.id] ?? {};
    const parts = Object.keys(pieces).sort().map((seat) => {
      const kinds = pieces[seat];
      return `${names.seat(seat)} ` + Object.keys(kinds).sort().map((k) => plural(kinds[k], k)).join(', ');
    });
    parts.push(...pawnsOf(c.id));
    lines.push(
      `${c.name} (${suits[c.id] || 'no suit'}): ${parts.join('; ') || 'empty'}.` +
        ` Paths to ${c.adjacent_ids.map((a) => names.place(a)).join(', ')}.`,
    );
  }
  const onMap = new Set(data.clearings.map((c) => c.id));
  for (const at of Object.keys(board.pawns).sort()) {
    if (!onMap.has(at) && board.pawns[at].length) lines.push(`${names.place(at)}: ${pawnsOf(at).join('; ')}.`);
  }
  return lines.join('\n');
}
