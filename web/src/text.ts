// The board as text: one line per clearing with its contents and paths.  Read by screen
// readers (the page's "Text view"), and the golden format the browser tests compare.

import { Board } from './model';

export function textView(board: Board, data: any, suits: Record<string, string>): string {
  const lines = [
    `Round ${board.round} · team A ${board.scoreA} · team B ${board.scoreB}` +
      (board.winner ? ` · winner ${board.winner}` : ''),
  ];
  for (const c of data.clearings) {
    const pieces = board.clearings[c.id] ?? {};
    const parts = Object.keys(pieces).sort().map((seat) => {
      const kinds = pieces[seat];
      return `${seat} ` + Object.keys(kinds).sort().map((k) => `${k} ${kinds[k]}`).join(', ');
    });
    const pawns = board.pawns[c.id] ?? [];
    if (pawns.length) parts.push(`pawn ${pawns.join(' ')}`);
    lines.push(
      `${c.name} (${suits[c.id] || 'no suit'}, ${c.id}): ${parts.join('; ') || 'empty'}.` +
        ` Paths to ${c.adjacent_ids.join(', ')}.`,
    );
  }
  return lines.join('\n');
}
