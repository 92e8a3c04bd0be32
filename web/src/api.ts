// The browser API's client: JSON calls and the server-sent event stream.  A seat token is
// kept in sessionStorage (per match) and sent in a header, never in a URL.

export const TOKEN_HEADER = 'X-Frontier-Seat-Token';

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

export async function api<T = any>(path: string, opts: { method?: string; body?: unknown; token?: string } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.token) headers[TOKEN_HEADER] = opts.token;
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
