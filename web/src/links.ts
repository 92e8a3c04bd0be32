// Seat links and the host link: how a seat or the management of a match moves to another
// tab or device.  A seat link (/play?match=ID#seat=TOKEN) and the host link
// (/match?match=ID#host=TOKEN) carry their secret in the URL fragment, which browsers never
// send to a server; the page keeps it in localStorage and drops it from the address bar.
// Below the match page, the seat's player finds its own link (copy, revoke and reissue),
// and the host finds the host link and, per seat, who plays it with the host's powers: give
// a person's seat to a bot and back, a new link for a player who lost theirs.

import { api, ApiError, hostedMatch, hostLink, rememberHosted, rememberSeat, seatFor, seatLink, tokenFor } from './api';
import type { MatchInfoReply, ReissuedSeat, SeatEntry } from './contract';
import { html } from './svg';

export type { SeatEntry };

const REFRESH_MS = 3000;

// Who plays a seat, in words (the gateway's status names; an unknown one as is).
export function seatWords(s: SeatEntry): string {
  const person = s.holder === 'claimed' ? 'its invitee' : 'the host';
  const words: Record<string, string> = {
    open: 'open',
    bot: `bot (${s.bot})`,
    host: 'the host',
    claimed: 'invitee',
    taken_over: `bot (${s.bot}) took over from ${person}`,
    bot_for_player: `bot (${s.bot}) playing for ${person}`,
  };
  return words[s.status] ?? s.status;
}

// A link opened with a secret in its fragment: keep the secret, clean the address bar.
// Returns an error to show instead of the page ('' when the page may go on).
export async function adoptFragment(): Promise<string> {
  const frag = new URLSearchParams(location.hash.slice(1));
  const matchId = new URLSearchParams(location.search).get('match') ?? '';
  const seatToken = frag.get('seat') ?? frag.get('token'); // #token=: the links made before seat links
  const hostToken = frag.get('host');
  if (!matchId || (!seatToken && !hostToken)) return '';
  history.replaceState(null, '', location.pathname + location.search); // the secret leaves the address bar
  if (hostToken) rememberHosted(matchId, { host_token: hostToken, invites: hostedMatch(matchId)?.invites ?? {} });
  if (!seatToken) return '';
  try {
    // the link names no seat: the token's own view says which it is
    const reply = await api<MatchInfoReply>(`/api/matches/${encodeURIComponent(matchId)}/info`, { token: seatToken });
    const seat = String(reply.initial_view.viewer).replace('SEAT_', '');
    rememberSeat(matchId, seat, seatToken);
    const query = new URLSearchParams(location.search);
    query.set('seat', seat);
    history.replaceState(null, '', `${location.pathname}?${query}`);
    return '';
  } catch (e) {
    const err = e as ApiError;
    if (err.error === 'token_reissued') return 'This seat link was replaced by a newer one. Ask the match\'s host (or use the newest link you were given).';
    return `This seat link does not open a seat: ${err.message}`;
  }
}

// A token of 32 random bytes, drawn here: a reissue sends it, so a retry after a lost reply
// sends the same one and the seat is never left without a working link.
function drawToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function copyField(id: string, label: string, value: string): HTMLElement {
  const field = html('input', { id, readonly: '', size: '60', value, 'aria-label': label }) as HTMLInputElement;
  const copy = html('button', { type: 'button', id: `${id}-copy` }, 'Copy link');
  copy.addEventListener('click', async () => {
    field.select();
    try { await navigator.clipboard.writeText(field.value); copy.textContent = 'Copied'; }
    catch { copy.textContent = 'Select and copy it'; }
  });
  return html('p', {}, `${label}: `, field, ' ', copy);
}

// The seat's own link, and its revoke-and-reissue button (a link that leaked).
export function seatPanel(matchId: string): HTMLElement {
  const seat = seatFor(matchId);
  const token = tokenFor(matchId, seat);
  const box = html('section', { class: 'seat-links', id: 'seat-links' }, html('h2', {}, 'Your seat on other devices'));
  if (!token) return box;
  const pendingItem = `frontier.pending.${matchId}.${seat}`;
  const status = html('span', { id: 'reissue-status', role: 'status' });
  const reissue = html('button', { type: 'button', id: 'reissue' }, 'Revoke and reissue my link');
  async function run(newToken: string): Promise<void> {
    localStorage.setItem(pendingItem, newToken); // kept until the server answers
    try {
      const reply = await api<ReissuedSeat>(`/api/matches/${encodeURIComponent(matchId)}/reissue`, { method: 'POST', token, body: { new_token: newToken } });
      rememberSeat(matchId, reply.seat, reply.token);
      localStorage.removeItem(pendingItem);
      location.reload(); // the page goes on with the new token
    } catch (e) {
      const err = e as ApiError;
      status.textContent = ` Not reissued: ${err.message}`;
      if (err.status >= 400 && err.status < 500) localStorage.removeItem(pendingItem);
    }
  }
  reissue.addEventListener('click', () => {
    if (confirm('Your current link (on every device) stops working. Make a new one?')) void run(drawToken());
  });
  const pending = localStorage.getItem(pendingItem);
  if (pending) void run(pending); // a reissue whose answer was lost: the same token again
  box.append(copyField('seat-link', 'Your seat link (open it on another device to play there; keep it secret)', seatLink(matchId, token)),
    html('p', {}, reissue, status));
  return box;
}

// The host's controls of one match: the host link, and per seat who plays it and what the
// host may do about it.
export function hostPanel(matchId: string): HTMLElement {
  const hosted = hostedMatch(matchId);
  const box = html('section', { class: 'host-links', id: 'host-links' });
  if (!hosted) return box;
  const seats = html('ul', { id: 'host-seats' });
  const issued = html('div', { id: 'issued' });
  box.append(html('h2', {}, 'You host this match'),
    copyField('host-link', 'Host link (manage this match from another device; keep it secret)', hostLink(matchId, hosted.host_token)),
    seats, issued);
  const refresh = async (): Promise<void> => {
    const reply = await api<MatchInfoReply>(`/api/matches/${encodeURIComponent(matchId)}/info`);
    seats.replaceChildren(...reply.seats.map((s) => seatItem(matchId, s, hosted.host_token, refresh, issued)));
  };
  void refresh().catch(() => undefined);
  setInterval(() => { if (!document.hidden) void refresh().catch(() => undefined); }, REFRESH_MS);
  return box;
}

// One seat and the host's buttons for it (an ended match refuses them, saying so).
function seatItem(matchId: string, s: SeatEntry, host: string, refresh: () => Promise<void>, issued: HTMLElement): HTMLElement {
  const item = html('li', { class: `seat seat-${s.status}`, 'data-seat': s.seat, 'data-status': s.status }, `${s.seat}: ${seatWords(s)} `);
  const seatPath = `/api/matches/${encodeURIComponent(matchId)}/seats/${s.seat}`;
  const act = (kind: string, label: string, call: () => Promise<unknown>): void => {
    const b = html('button', { type: 'button', class: `host-${kind}` }, label);
    b.addEventListener('click', async () => {
      try { await call(); await refresh(); }
      catch (e) { b.replaceWith(html('span', { class: 'error', role: 'alert' }, (e as Error).message)); }
    });
    item.append(' ', b);
  };
  const person = ['host', 'claimed', 'taken_over', 'bot_for_player'].includes(s.status);
  if (s.status === 'host' || s.status === 'claimed' || s.status === 'taken_over') {
    act('bot', 'give to a bot', () => api(`${seatPath}/bot`, { method: 'POST', host, body: { replace_player: true } }));
  }
  if (s.status === 'open') act('bot', 'give to a bot', () => api(`${seatPath}/bot`, { method: 'POST', host, body: {} }));
  if (s.status === 'bot_for_player' || s.status === 'taken_over') {
    act('return', 'give back', () => api(`${seatPath}/return`, { method: 'POST', host, body: {} }));
  }
  if (person) {
    act('reissue', 'new link', async () => {
      const reply = await api<ReissuedSeat>(`/api/matches/${encodeURIComponent(matchId)}/reissue`, { method: 'POST', host, body: { seat: s.seat, new_token: drawToken() } });
      issued.replaceChildren(copyField(`issued-${s.seat}`, `New link for ${s.seat} (its old link no longer works)`, seatLink(matchId, reply.token)));
    });
  }
  return item;
}
