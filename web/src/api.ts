// The browser API's client: JSON calls and the server-sent event stream.  A seat token (and
// the host token of a match this tab created) is kept in sessionStorage (per match) and sent
// in a header, never in a URL.  Every call carries CLIENT_HEADER: the gateway lets a request
// without Origin or Referer change something only with it, and no other site's page can send
// it (a custom header needs a CORS preflight, which the gateway never grants).

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

export function tokenFor(matchId: string): string {
  return sessionStorage.getItem(`frontier.token.${matchId}`) ?? '';
}

export function rememberToken(matchId: string, token: string): void {
  sessionStorage.setItem(`frontier.token.${matchId}`, token);
}

// What the host of a match created in this tab keeps: its host token and the open seats'
// invite codes (the orchestrator returns them once, at creation).
export interface Hosted { host_token: string; invites: Record<string, string> }

export function hostedMatch(matchId: string): Hosted | null {
  const raw = sessionStorage.getItem(`frontier.host.${matchId}`);
  return raw ? JSON.parse(raw) as Hosted : null;
}

export function rememberHosted(matchId: string, hosted: Hosted): void {
  sessionStorage.setItem(`frontier.host.${matchId}`, JSON.stringify(hosted));
}

export async function api<T = any>(path: string, opts: { method?: string; body?: unknown; token?: string; host?: string; hostCall?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { [CLIENT_HEADER]: 'web', 'Content-Type': 'application/json' };
  if (opts.token) headers[TOKEN_HEADER] = opts.token;
  if (opts.host) headers[HOST_HEADER] = opts.host;
  if ((opts.host || opts.hostCall) && hostKey()) headers[HOST_KEY_HEADER] = hostKey();
  const reply = await fetch(path, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const data = await reply.json();
  if (!reply.ok) throw new ApiError(reply.status, data.error ?? 'error', data.detail ?? reply.statusText);
  return data as T;
}

// Follows the public event stream from `from` on; calls `onEvent` per event, `onEnd` once.
export function follow(matchId: string, from: number, onEvent: (e: any) => void, onEnd: () => void): EventSource {
  const source = new EventSource(`/api/matches/${encodeURIComponent(matchId)}/events?from=${from}`);
  source.onmessage = (m) => onEvent(JSON.parse(m.data));
  source.addEventListener('end', () => { source.close(); onEnd(); });
  source.addEventListener('error', () => { if (source.readyState === EventSource.CLOSED) onEnd(); });
  return source;
}
