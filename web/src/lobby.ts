// The lobby: the hosted matches with who plays each seat (open, a bot, the host, an
// invitee, a bot playing for one of them, from the orchestrator), and a form to create one
// (lineup, rounds, clock, which seats the server's bots play).  Every other seat is open: it
// gets an invite link to hand to its player.  The creator gets the host link, which manages
// the match from any browser.

import { api, hostedMatch, hostKey, hostLink, rememberHostKey, rememberHosted } from './api';
import type { CreatedMatch, GameData, MatchPage, MatchRow } from './contract';
import { seatWords } from './links';
import { html } from './svg';

const SEATS = ['A1', 'B1', 'A2', 'B2', 'A3', 'B3'];
const REFRESH_MS = 3000;

export function inviteLink(matchId: string, code: string): string {
  // The code rides in the fragment, which browsers never send to a server (nor log).
  return `${location.origin}/join?match=${encodeURIComponent(matchId)}#invite=${encodeURIComponent(code)}`;
}

export async function lobby(root: HTMLElement): Promise<void> {
  const data = await api<GameData>('/api/game-data');
  root.replaceChildren(html('h1', {}, 'Frontier — Root 3x3 (Frontier Alliance Mode)'),
    html('p', { class: 'intro' }, 'Create a match below: tick the seats the server\'s bots should play; every other seat gets an invite link. Open a link yourself to play that seat, or send it to a friend. Any match in the list can be watched live or replayed.'),
    html('p', { class: 'arena-link' }, html('a', { href: '/arena', id: 'arena-link' }, 'Arena leaderboard'), ': bots ranked by their rated matches, and those matches\' replays.'));
  const form = html('form', { id: 'create', class: 'create' });
  form.append(html('h2', {}, 'Create a match'));
  form.append(html('label', {}, 'Lineup ', html('input', { name: 'lineup', id: 'lineup', size: '50', placeholder: data.lineup?.default_lineup ?? '' })));
  form.append(html('label', {}, 'Rounds ', html('input', { name: 'max_rounds', id: 'max_rounds', type: 'number', min: '1', max: '6', value: '6' })));
  form.append(html('label', {}, 'Clock: budget s ', html('input', { name: 'budget', id: 'budget', type: 'number', min: '0', value: '0' })));
  form.append(html('label', {}, ' reserve s ', html('input', { name: 'reserve', id: 'reserve', type: 'number', min: '0', value: '0' })));
  const seats = html('fieldset', {}, html('legend', {}, 'Bot seats (played by the server; the others get invite links for people)'));
  for (const s of SEATS) {
    const box = html('input', { type: 'checkbox', name: 'bot', value: s, id: `bot-${s}` });
    if (s !== 'A1') box.setAttribute('checked', '');
    seats.append(html('label', {}, box, ` ${s} `));
  }
  const key = html('input', { name: 'host_key', id: 'host-key', type: 'password', size: '40', autocomplete: 'off', placeholder: 'only if this server asks for one' }) as HTMLInputElement;
  key.value = hostKey();
  key.addEventListener('change', () => rememberHostKey(key.value));
  form.append(html('label', {}, 'Host key ', key));
  form.append(seats, html('button', { type: 'submit', id: 'create-button' }, 'Create match'));
  const created = html('div', { id: 'created' });
  const list = html('div', { id: 'matches' });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const get = (id: string) => (form.querySelector(`#${id}`) as HTMLInputElement).value;
    const bots = [...form.querySelectorAll<HTMLInputElement>('input[name=bot]:checked')].map((b) => b.value);
    try {
      rememberHostKey(key.value);
      const reply = await api<CreatedMatch>('/api/matches', {
        method: 'POST',
        hostCall: true,
        body: { lineup: get('lineup'), max_rounds: Number(get('max_rounds')), decision_budget_ms: 1000 * Number(get('budget')), reserve_ms: 1000 * Number(get('reserve')), bots },
      });
      const invites: Record<string, string> = {};
      for (const i of reply.invites) invites[i.seat] = i.invite_code;
      rememberHosted(reply.match_id, { host_token: reply.host_token, invites });
      created.replaceChildren(html('p', {}, `Match ${reply.match_id} created. `, html('a', { href: `/match?match=${reply.match_id}`, id: 'watch-link' }, 'Watch it')),
        html('p', {}, 'Host link (manage this match from any device; keep it secret): ',
          html('a', { href: hostLink(reply.match_id, reply.host_token), id: 'created-host-link' }, 'host link')));
      for (const i of reply.invites) {
        created.append(html('p', {}, `Seat ${i.seat}: `, html('a', { href: inviteLink(reply.match_id, i.invite_code), class: 'seat-link', 'data-seat': i.seat }, 'invite link'),
          ' — open it to play this seat yourself (you will be asked to confirm), or send it to its player (it works once)'));
      }
      if (!reply.invites.length) created.append(html('p', {}, 'Every seat is a bot: watch them play.'));
      await listMatches(list);
    } catch (e) {
      created.replaceChildren(html('p', { class: 'error', role: 'alert' }, String((e as Error).message)));
    }
  });
  const filter = html('select', { id: 'status-filter', 'aria-label': 'show matches' },
    ...[['', 'all'], ['in_progress', 'in progress'], ['finished', 'finished'], ['abandoned', 'abandoned']].map(([v, t]) => html('option', { value: v }, t)));
  filter.addEventListener('change', () => void listMatches(list));
  root.append(form, created, html('h2', {}, 'Matches ', filter), list);
  await listMatches(list);
  // status, rounds, scores and seats change while the lobby is open
  setInterval(() => { if (!document.hidden && !list.querySelector('#more')) void listMatches(list).catch(() => undefined); }, REFRESH_MS);
}

const STATUS: Record<string, string> = { MATCH_STATUS_IN_PROGRESS: 'in progress', MATCH_STATUS_FINISHED: 'finished', MATCH_STATUS_ABANDONED: 'abandoned' };

async function listMatches(list: HTMLElement, pageToken = ''): Promise<void> {
  const status = (document.getElementById('status-filter') as HTMLSelectElement | null)?.value ?? '';
  const query = new URLSearchParams({ status, page_token: pageToken });
  const { matches, next_page_token: next } = await api<MatchPage>(`/api/matches?${query}`);
  const table = html('table', { class: 'matches' }, html('tr', {}, ...['match', 'status', 'round', 'A', 'B', 'seats', ''].map((h) => html('th', {}, h))));
  for (const m of matches) {
    const status = m.winner ? `finished: ${m.winner === 'draw' ? 'a draw' : 'team ' + m.winner + ' won'}` : STATUS[m.status] ?? 'in progress';
    const running = m.status === 'MATCH_STATUS_IN_PROGRESS';
    const hosted = hostedMatch(m.match_id);
    const actions = html('td', {}, html('a', { href: `/match?match=${m.match_id}` }, running ? 'watch' : 'replay'));
    if (hosted && running) actions.append(' ', hostButton('abandon', 'abandon', `/api/matches/${m.match_id}/abandon`, hosted, list));
    table.append(html('tr', { 'data-match': m.match_id }, html('td', {}, m.match_id), html('td', {}, status), html('td', {}, String(m.round)),
      html('td', {}, String(m.score_a)), html('td', {}, String(m.score_b)), seatCell(m, hosted, running, list), actions));
  }
  list.replaceChildren(table);
  if (next) {
    const more = html('button', { type: 'button', id: 'more' }, 'More matches');
    more.addEventListener('click', () => void listMatches(list, next));
    list.append(more);
  }
}

// Each seat as the orchestrator reports it; the host of the match (this browser created it
// or opened its host link) also gets each open seat's invite link and the host's buttons: an
// open seat or a person's to a bot, a bot playing for a person back to that person.
function seatCell(m: MatchRow, hosted: ReturnType<typeof hostedMatch>, running: boolean, list: HTMLElement): HTMLElement {
  const cell = html('td', { class: 'seats' });
  for (const s of m.seats) {
    const item = html('span', { class: `seat seat-${s.status}`, 'data-seat': s.seat, 'data-status': s.status }, `${s.seat} ${seatWords(s)}`);
    const path = `/api/matches/${m.match_id}/seats/${s.seat}`;
    const code = hosted?.invites[s.seat];
    if (s.status === 'open' && code && running && hosted) {
      item.append(' ', html('a', { href: inviteLink(m.match_id, code), class: 'invite' }, 'invite link'));
    }
    if (running && hosted) {
      if (s.status === 'open') item.append(' ', hostButton('bot', 'give to a bot', `${path}/bot`, hosted, list));
      if (['host', 'claimed', 'taken_over'].includes(s.status)) {
        item.append(' ', hostButton('bot', 'give to a bot', `${path}/bot`, hosted, list, { replace_player: true }));
      }
      if (s.status === 'bot_for_player' || s.status === 'taken_over') item.append(' ', hostButton('return', 'give back', `${path}/return`, hosted, list));
    }
    cell.append(item, ' ');
  }
  return cell;
}

function hostButton(kind: string, label: string, path: string, hosted: { host_token: string }, list: HTMLElement, body: object = {}): HTMLElement {
  const b = html('button', { type: 'button', class: `host-${kind}` }, label);
  b.addEventListener('click', async () => {
    try { await api(path, { method: 'POST', body, host: hosted.host_token }); await listMatches(list); }
    catch (e) { b.replaceWith(html('span', { class: 'error', role: 'alert' }, (e as Error).message)); }
  });
  return b;
}
