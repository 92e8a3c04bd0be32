// The browser API's client: JSON calls and the server-sent event stream.  A seat token (and
// the host token of a match) is kept in localStorage, per match and seat, so that a new tab
// of the same browser finds it (/play?match=ID), and is sent in a header, never in a URL.
// Every call carries CLIENT_HEADER: the gateway lets a request without Origin or Referer
// change something only with it, and no other site's page can send it (a custom header
// needs a CORS preflight, which the gateway never grants).

import type { StreamEnd, WatchedEvent } from './contract';

export const TOKEN_HEADER = 'X-Frontier-Seat-Token';
export const HOST_HEADER = 'X-Frontier-Host-Token';
export const CLIENT_HEADER = 'X-Frontier-Client';
// A host key pasted in the lobby (kept in localStorage): sent on the host calls (create,
// bot seats, abandon), which a public server refuses without one.  A local server, or a
// gateway with a key of its own, needs none.
export const HOST_KEY_HEADER = 'X-Frontier-Host-Key';
const HOST_KEY_ITEM = 'frontier.hostKey';

export function hostKey(): string {
  return localStorage.getItem(HOST_KEY_ITEM) ?? '';
}

export function rememberHostKey(key: string): void {
  if (key.trim()) localStorage.setItem(HOST_KEY_ITEM, key.trim());
  else localStorage.removeItem(HOST_KEY_ITEM);
}

export class ApiError extends Error {
  constructor(public status: number, public error: string, detail: string) {
    super(detail);
  }
}

const ANY_SEAT = 'any'; // a token whose seat the page did not learn (an old #token= link)

function seatItem(matchId: string, seat: string): string {
  return `frontier.seat.${matchId}.${seat || ANY_SEAT}`;
}

// The seat a page plays: ?seat=A1 in its address, else the seat this browser took last in
// the match.
export function seatFor(matchId: string): string {
  return new URLSearchParams(location.search).get('seat') ?? localStorage.getItem(`frontier.lastSeat.${matchId}`) ?? '';
}

export function tokenFor(matchId: string, seat: string = seatFor(matchId)): string {
  return localStorage.getItem(seatItem(matchId, seat)) ?? '';
}

export function rememberSeat(matchId: string, seat: string, token: string): void {
  localStorage.setItem(seatItem(matchId, seat), token);
  localStorage.setItem(`frontier.lastSeat.${matchId}`, seat || ANY_SEAT);
}

export function rememberToken(matchId: string, token: string): void {
  rememberSeat(matchId, seatFor(matchId), token);
}

// What the host of a match keeps: its host token and the open seats' invite codes (the
// orchestrator returns them once, at creation; a host link brings the token alone).
export interface Hosted { host_token: string; invites: Record<string, string> }

export function hostedMatch(matchId: string): Hosted | null {
  const raw = localStorage.getItem(`frontier.host.${matchId}`);
  return raw ? JSON.parse(raw) as Hosted : null;
}

export function rememberHosted(matchId: string, hosted: Hosted): void {
  localStorage.setItem(`frontier.host.${matchId}`, JSON.stringify(hosted));
}

// Links that carry a secret in the fragment, which browsers never send to a server.
export function seatLink(matchId: string, token: string): string {
  return `${location.origin}/play?match=${encodeURIComponent(matchId)}#seat=${encodeURIComponent(token)}`;
}

export function hostLink(matchId: string, hostToken: string): string {
  return `${location.origin}/match?match=${encodeURIComponent(matchId)}#host=${encodeURIComponent(hostToken)}`;
}

// The reply's type is the caller's to name (contract.ts: the proto messages, as the gateway
// sends them, and its own wrappers); a reply it does not read is `unknown`.
export async function api<T = unknown>(path: string, opts: { method?: string; body?: unknown; token?: string; host?: string; hostCall?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { [CLIENT_HEADER]: 'web', 'Content-Type': 'application/json' };
  if (opts.token) headers[TOKEN_HEADER] = opts.token;
  if (opts.host) headers[HOST_HEADER] = opts.host;
  if ((opts.host || opts.hostCall) && hostKey()) headers[HOST_KEY_HEADER] = hostKey();
  const reply = await fetch(path, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const data: unknown = await reply.json();
  if (!reply.ok) {
    const refusal = (data ?? {}) as { error?: string; detail?: string };
    throw new ApiError(reply.status, refusal.error ?? 'error', refusal.detail ?? reply.statusText);
  }
  return data as T;
}

// Follows the public event stream from `from` on; calls `onEvent` per event, and `onEnd` once:
// with the match's status (MATCH_STATUS_FINISHED or MATCH_STATUS_ABANDONED) when the match
// ended, which the server says in the stream's last event and then closes it, or with '' when
// the stream broke off for good.  A stream that drops for a while is reconnected by the
// browser (Last-Event-ID), and the server sends the end only once the match is over.
export function follow(matchId: string, from: number, onEvent: (e: WatchedEvent) => void, onEnd: (status: string) => void): EventSource {
  const source = new EventSource(`/api/matches/${encodeURIComponent(matchId)}/events?from=${from}`);
  source.onmessage = (m: MessageEvent<string>) => onEvent(JSON.parse(m.data) as WatchedEvent);
  source.addEventListener('end', (m: MessageEvent<string>) => {
    source.close();
    onEnd((JSON.parse(m.data || '{}') as Partial<StreamEnd>).status ?? '');
  });
  source.addEventListener('error', () => { if (source.readyState === EventSource.CLOSED) onEnd(''); });
  return source;
}
