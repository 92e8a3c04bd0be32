// The arena's leaderboard (/arena): the ranking with each rating's interval, per-faction
// ratings and the rating over time on expanding a row, the rating over time of the leaders,
// and the recent matches with links to their replays.  Everything comes from
// GET /api/arena/leaderboard (ArenaService.GetLeaderboard as JSON).  A bot author finds
// their bot by name, or opens /arena#bot=NAME to have its row opened and scrolled to.

import { fmt, intervalBar, lineChart, Series, TONES } from './arena_chart';
import { html } from './svg';

interface Skill { mu: number; sigma: number; ordinal: number; matches: number }
interface RatingPoint { sequence: string; match_id: string; finished_unix_ms: string; mu: number; sigma: number; ordinal: number }
interface Entry {
  bot_id: string; name: string; rating: Skill; matches_played: number; ranked: boolean;
  factions: { faction: string; rating: Skill }[]; matches_left: number; builtin: boolean; history: RatingPoint[];
}
interface ArenaSeat { seat: string; bot_id: string; name: string; faction: string; left: boolean }
interface ArenaMatch {
  match_id: string; seats: ArenaSeat[]; state: string; winner: string; score_a: number; score_b: number;
  finished_unix_ms: string; sequence: string;
}
interface Board { entries: Entry[]; recent_matches: ArenaMatch[]; ranked_after: number }

const FACTIONS: Record<string, string> = {
  marquise: 'Marquise de Cat', eyrie: 'Eyrie Dynasties', alliance: 'Woodland Alliance', vagabond: 'Vagabond',
};
const CHART_LINES = 8;  // the leaders drawn on the chart over time
const REFRESH_MS = 15000;
const COLUMNS = ['Rank', 'Bot', 'Rating: μ ± 2σ', 'Matches'];
const root = document.getElementById('arena') as HTMLElement;
const opened = new Set<string>();  // the bots whose rows are open, kept across refreshes

const factionName = (f: string): string => FACTIONS[f] ?? f;
const interval = (s: Skill): string => `${fmt(s.mu)} ± ${fmt(2 * s.sigma)}`;
const when = (ms: string): string => (Number(ms) ? new Date(Number(ms)).toLocaleString() : '');

function ratingWords(e: Entry): string {
  const lo = e.rating.mu - 2 * e.rating.sigma, hi = e.rating.mu + 2 * e.rating.sigma;
  return `${e.name}: rating ${fmt(e.rating.mu)}, interval ${fmt(lo)} to ${fmt(hi)}`;
}

function historyChart(e: Entry): HTMLElement {
  if (!e.history.length) return html('p', {}, 'No rated match yet.');
  const points = e.history.map((p) => ({ x: Number(p.sequence), y: p.mu, lo: p.mu - 2 * p.sigma, hi: p.mu + 2 * p.sigma }));
  const figure = html('figure', { class: 'history' });
  figure.append(lineChart([{ name: e.name, points, tone: 0 }], `${e.name}'s rating after each of its last ${points.length} rated matches, with its interval`),
    html('figcaption', {}, `Rating (μ, line) and its interval μ ± 2σ (band) after each of ${e.name}'s last ${points.length} rated matches.`));
  return figure;
}

function details(e: Entry, columns: number): HTMLTableRowElement {
  const factions = html('table', { class: 'factions' },
    html('caption', {}, `${e.name} per faction`),
    html('thead', {}, html('tr', {}, html('th', { scope: 'col' }, 'Faction'), html('th', { scope: 'col' }, 'Rating (μ ± 2σ)'), html('th', { scope: 'col' }, 'Matches'))));
  const body = html('tbody');
  for (const f of e.factions) {
    body.append(html('tr', {}, html('th', { scope: 'row' }, factionName(f.faction)), html('td', {}, interval(f.rating)), html('td', {}, String(f.rating.matches))));
  }
  factions.append(body);
  const facts = html('p', {}, `Conservative rating (μ − 3σ, the board's order): ${fmt(e.rating.ordinal)}. `,
    `Matches left before their end: ${e.matches_left}.`, e.builtin ? ' A built-in bot of the server.' : ` Bot id ${e.bot_id}.`);
  const cell = html('td', { colspan: String(columns) }, facts, e.factions.length ? factions : '', historyChart(e));
  const row = html('tr', { class: 'details', id: `details-${e.bot_id.replace(/\W/g, '-')}` }, cell);
  row.hidden = !opened.has(e.bot_id);
  return row;
}

function entryRow(e: Entry, rank: number, board: Board, scale: [number, number]): HTMLTableRowElement[] {
  const more = Math.max(board.ranked_after - e.matches_played, 0);
  const toggle = html('button', { type: 'button', class: 'bot-name', 'aria-expanded': String(opened.has(e.bot_id)) }, e.name);
  const row = html('tr', { class: 'entry', 'data-bot': e.bot_id, 'data-name': e.name },
    html('td', { class: 'rank' }, e.ranked ? String(rank) : '–'),
    html('th', { scope: 'row' }, toggle, e.builtin ? html('span', { class: 'builtin' }, ' built-in') : ''),
    html('td', { class: 'bar' }, html('span', { class: 'rating' }, interval(e.rating)),
      intervalBar(e.rating.mu - 2 * e.rating.sigma, e.rating.mu, e.rating.mu + 2 * e.rating.sigma, scale[0], scale[1], ratingWords(e))),
    html('td', { class: 'matches' }, String(e.matches_played), e.ranked ? '' : html('span', { class: 'more' }, `${more} more matches`)));
  const panel = details(e, COLUMNS.length);
  toggle.setAttribute('aria-controls', panel.id);
  toggle.addEventListener('click', () => {
    const open = panel.hidden;
    panel.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) opened.add(e.bot_id); else opened.delete(e.bot_id);
  });
  return [row, panel];
}

function ranking(board: Board): HTMLElement {
  const lows = board.entries.map((e) => e.rating.mu - 2 * e.rating.sigma);
  const highs = board.entries.map((e) => e.rating.mu + 2 * e.rating.sigma);
  const scale: [number, number] = [Math.floor(Math.min(...lows)), Math.ceil(Math.max(...highs))];
  const table = html('table', { id: 'ranking', class: 'ranking' },
    html('caption', {}, `Ranked after ${board.ranked_after} rated matches; the bars share one scale, ${scale[0]} to ${scale[1]}: bars that overlap are ratings the arena cannot yet tell apart.`),
    html('thead', {}, html('tr', {}, ...COLUMNS.map((t) => html('th', { scope: 'col' }, t)))));
  const body = html('tbody');
  const ranked = board.entries.filter((e) => e.ranked), unranked = board.entries.filter((e) => !e.ranked);
  ranked.forEach((e, i) => body.append(...entryRow(e, i + 1, board, scale)));
  if (unranked.length) {
    body.append(html('tr', { class: 'unranked-head' }, html('th', { colspan: String(COLUMNS.length), scope: 'colgroup' }, `Not ranked yet: fewer than ${board.ranked_after} rated matches`)));
    unranked.forEach((e) => body.append(...entryRow(e, 0, board, scale)));
  }
  table.append(body);
  return table;
}

function leaders(board: Board): HTMLElement {
  const drawn = board.entries.filter((e) => e.history.length).slice(0, CHART_LINES);
  if (!drawn.length) return html('p', {}, 'No rated match yet.');
  const series: Series[] = drawn.map((e, i) => ({ name: e.name, tone: i % TONES, points: e.history.map((p) => ({ x: Number(p.sequence), y: p.mu })) }));
  const legend = html('ul', { class: 'legend' }, ...series.map((s) => html('li', {}, html('span', { class: `swatch tone-${s.tone}`, 'aria-hidden': 'true' }), s.name)));
  return html('figure', { class: 'leaders' }, lineChart(series, `Rating (μ) over the arena's matches of ${series.map((s) => s.name).join(', ')}`), legend,
    html('figcaption', {}, `Rating (μ) after each rated match of the first ${series.length} bots on the board.`));
}

// One line a team: who played it (one entrant plays a whole team) and its factions.
function team(m: ArenaMatch, side: string): HTMLElement {
  const players = new Map<string, ArenaSeat[]>();
  for (const s of m.seats.filter((seat) => seat.seat.replace('SEAT_', '').startsWith(side))) {
    const key = s.bot_id || `filler:${s.name}`;
    players.set(key, [...(players.get(key) ?? []), s]);
  }
  const who = [...players.values()].map((seats) => {
    const allLeft = seats.every((s) => s.left); // the bot left: said once, not per seat
    const name = `${seats[0].name}${seats[0].bot_id ? '' : ' (filler)'}${allLeft ? ' (left)' : ''}`;
    return `${name} as ${seats.map((s) => `${factionName(s.faction)}${s.left && !allLeft ? ' (left)' : ''}`).join(', ')}`;
  });
  return html('p', { class: 'team' }, html('strong', {}, `Team ${side}: `), who.join('; '));
}

function result(m: ArenaMatch): string {
  if (m.state === 'ARENA_MATCH_STATE_VOID') return 'void: ended without a result, not rated';
  const score = `${m.score_a}–${m.score_b}`;
  return m.winner === 'draw' ? `draw, ${score}` : `Team ${m.winner} won, ${score}`;
}

function recent(board: Board): HTMLElement {
  if (!board.recent_matches.length) return html('p', {}, 'No match has ended yet.');
  return html('ol', { id: 'recent', class: 'recent' }, ...board.recent_matches.map((m) => html('li', { class: 'recent-match', 'data-match': m.match_id },
    html('p', {}, html('strong', {}, `Match ${m.sequence}`), ` · ${when(m.finished_unix_ms)} · ${result(m)} · `,
      html('a', { href: `/match?match=${encodeURIComponent(m.match_id)}`, class: 'replay', 'aria-label': `replay of match ${m.sequence}` }, 'replay')),
    team(m, 'A'), team(m, 'B'))));
}

function draw(board: Board): void {
  const main: HTMLElement[] = [html('p', { class: 'nav' }, html('a', { href: '/' }, '← Lobby')),
    html('h1', {}, 'Arena leaderboard'),
    html('p', { class: 'intro' }, 'Bots play each other and the server\'s built-in bots in rated matches (openskill, team-aware). Each rating is μ with its uncertainty σ; the bar shows μ ± 2σ, and the board is ordered by the conservative μ − 3σ. Open a bot to see its rating per faction and over time.')];
  if (!board.entries.length) main.push(html('p', {}, 'No bot has played a rated match yet.'));
  else main.push(html('h2', {}, 'Ranking'), ranking(board), html('h2', {}, 'Rating over time'), leaders(board));
  main.push(html('h2', {}, 'Recent matches'), recent(board));
  root.replaceChildren(...main);
}

function openFromFragment(): void {
  const wanted = new URLSearchParams(location.hash.slice(1)).get('bot');
  if (!wanted) return;
  const row = [...root.querySelectorAll<HTMLElement>('tr.entry')].find((r) => r.dataset.name === wanted || r.dataset.bot === wanted);
  const toggle = row?.querySelector<HTMLButtonElement>('button.bot-name');
  if (!row || !toggle) return;
  if (toggle.getAttribute('aria-expanded') !== 'true') toggle.click();
  row.classList.add('found');
  row.scrollIntoView({ block: 'center' });
}

async function load(): Promise<Board> {
  const reply = await fetch('/api/arena/leaderboard', { headers: { Accept: 'application/json' } });
  const body = await reply.json().catch(() => ({}));
  if (reply.ok) return body as Board;
  if (body.error === 'arena_not_configured') throw new Error('This server runs no arena.');
  throw new Error(body.detail ?? `the leaderboard could not be read (${reply.status})`);
}

function fail(message: string): void {
  root.replaceChildren(html('p', { class: 'nav' }, html('a', { href: '/' }, '← Lobby')), html('h1', {}, 'Arena leaderboard'),
    html('p', { class: 'error', role: 'alert' }, message));
}

let shown = '';  // the board on show, to redraw only when it changed

// A redraw replaces the rows: the keyboard's focus goes back to the same bot's button.
function redraw(board: Board): void {
  const text = JSON.stringify(board);
  if (text === shown) return;
  shown = text;
  const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('tr.entry')?.dataset.bot;
  draw(board);
  if (focused) root.querySelector<HTMLElement>(`tr.entry[data-bot="${CSS.escape(focused)}"] button.bot-name`)?.focus();
}

async function start(): Promise<void> {
  redraw(await load());
  openFromFragment();
  window.addEventListener('hashchange', openFromFragment);
  setInterval(() => { if (!document.hidden) void load().then(redraw).catch(() => undefined); }, REFRESH_MS);
}

start().catch((e: Error) => fail(e.message));
