// The lobby: the hosted matches, and a form to create one (lineup, rounds, clock, bot seats).

import { api, rememberToken } from './api';
import { html } from './svg';

const SEATS = ['A1', 'B1', 'A2', 'B2', 'A3', 'B3'];

export async function lobby(root: HTMLElement): Promise<void> {
  const data = await api('/api/game-data');
  root.replaceChildren(html('h1', {}, 'Frontier — Root 3x3 (Frontier Alliance Mode)'));
  const form = html('form', { id: 'create', class: 'create' });
  form.append(html('h2', {}, 'Create a match'));
  form.append(html('label', {}, 'Lineup ', html('input', { name: 'lineup', id: 'lineup', size: '50', placeholder: data.lineup?.default_lineup ?? '' })));
  form.append(html('label', {}, 'Rounds ', html('input', { name: 'max_rounds', id: 'max_rounds', type: 'number', min: '1', max: '6', value: '6' })));
  form.append(html('label', {}, 'Clock: budget s ', html('input', { name: 'budget', id: 'budget', type: 'number', min: '0', value: '0' })));
  form.append(html('label', {}, ' reserve s ', html('input', { name: 'reserve', id: 'reserve', type: 'number', min: '0', value: '0' })));
  const seats = html('fieldset', {}, html('legend', {}, 'Bot seats (the others are played by people)'));
  for (const s of SEATS) {
    const box = html('input', { type: 'checkbox', name: 'bot', value: s, id: `bot-${s}` });
    if (s !== 'A1') box.setAttribute('checked', '');
    seats.append(html('label', {}, box, ` ${s} `));
  }
  form.append(seats, html('button', { type: 'submit', id: 'create-button' }, 'Create match'));
  const created = html('div', { id: 'created' });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const get = (id: string) => (form.querySelector(`#${id}`) as HTMLInputElement).value;
    const bots = [...form.querySelectorAll<HTMLInputElement>('input[name=bot]:checked')].map((b) => b.value);
    try {
      const reply = await api('/api/matches', {
        method: 'POST',
        body: { lineup: get('lineup'), max_rounds: Number(get('max_rounds')), decision_budget_ms: 1000 * Number(get('budget')), reserve_ms: 1000 * Number(get('reserve')), bots },
      });
      created.replaceChildren(html('p', {}, `Match ${reply.match_id} created. `, html('a', { href: `/match?match=${reply.match_id}`, id: 'watch-link' }, 'Watch it')));
      for (const p of reply.players) {
        // The token travels in the link's fragment, which browsers never send to a server.
        const link = `${location.origin}/play?match=${reply.match_id}#seat=${p.seat}&token=${encodeURIComponent(p.token)}`;
        created.append(html('p', {}, `Seat ${p.seat}: `, html('a', { href: link, class: 'seat-link', 'data-seat': p.seat }, 'play this seat'), ' (share this link with its player; it is the seat\'s secret)'));
      }
      if (reply.players.length === 1) rememberToken(reply.match_id, reply.players[0].token);
      await listMatches(list);
    } catch (e) {
      created.replaceChildren(html('p', { class: 'error', role: 'alert' }, String((e as Error).message)));
    }
  });
  const list = html('div', { id: 'matches' });
  const filter = html('select', { id: 'status-filter', 'aria-label': 'show matches' },
    ...[['', 'all'], ['in_progress', 'in progress'], ['finished', 'finished'], ['abandoned', 'abandoned']].map(([v, t]) => html('option', { value: v }, t)));
  filter.addEventListener('change', () => void listMatches(list));
  root.append(form, created, html('h2', {}, 'Matches ', filter), list);
  await listMatches(list);
}

const STATUS: Record<string, string> = { MATCH_STATUS_IN_PROGRESS: 'in progress', MATCH_STATUS_FINISHED: 'finished', MATCH_STATUS_ABANDONED: 'abandoned' };

async function listMatches(list: HTMLElement, pageToken = ''): Promise<void> {
  const status = (document.getElementById('status-filter') as HTMLSelectElement | null)?.value ?? '';
  const query = new URLSearchParams({ status, page_token: pageToken });
  const { matches, next_page_token: next } = await api(`/api/matches?${query}`);
  const table = html('table', { class: 'matches' }, html('tr', {}, ...['match', 'status', 'round', 'A', 'B', 'seats', ''].map((h) => html('th', {}, h))));
  for (const m of matches) {
    const status = m.winner ? `finished: ${m.winner === 'draw' ? 'a draw' : 'team ' + m.winner + ' won'}` : STATUS[m.status] ?? 'in progress';
    const seats = SEATS.map((s) => `${s} ${m.bot_seats.includes(s) ? 'bot' : 'player'}`).join(', ');
    table.append(html('tr', { 'data-match': m.match_id }, html('td', {}, m.match_id), html('td', {}, status), html('td', {}, String(m.round)), html('td', {}, String(m.score_a)), html('td', {}, String(m.score_b)), html('td', {}, seats), html('td', {}, html('a', { href: `/match?match=${m.match_id}` }, m.winner ? 'replay' : 'watch'))));
  }
  list.replaceChildren(table);
  if (next) {
    const more = html('button', { type: 'button', id: 'more' }, 'More matches');
    more.addEventListener('click', () => void listMatches(list, next));
    list.append(more);
  }
}
