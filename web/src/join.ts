// An invite link opened (/join?match=ID#invite=CODE): the code travels in the fragment, which
// browsers never send to a server; this page posts it to the gateway (ClaimSeat), keeps the
// seat token it gets back in localStorage (per match and seat: any tab of this browser finds
// it) and goes on to the seat's page, which offers the seat's own link for other devices.  A link whose seat
// is taken already gets a page that says so, and where to watch instead.  The tab that
// created the match sends its host token with the claim: the server then asks it to confirm
// (an invite is meant for another player), and a confirmed claim makes the seat the host's.

import { api, ApiError, hostedMatch, rememberSeat, tokenFor } from './api';
import type { ClaimedSeat } from './contract';
import { html } from './svg';

const CLAIMED = 'frontier.claimed.';

export async function joinPage(root: HTMLElement): Promise<void> {
  const matchId = new URLSearchParams(location.search).get('match') ?? '';
  const code = new URLSearchParams(location.hash.slice(1)).get('invite') ?? '';
  history.replaceState(null, '', location.pathname + location.search); // the secret leaves the address bar
  // This browser claimed this very link before (a reload, the back button): its seat is ours.
  const seat = localStorage.getItem(CLAIMED + matchId + '.' + code) ?? '';
  if (code && seat && tokenFor(matchId, seat)) {
    location.replace(playPath(matchId, seat));
    return;
  }
  if (!matchId || !code) {
    root.replaceChildren(failure('This is not a whole invite link.', 'An invite link looks like /join?match=…#invite=…; ask the match\'s host for it again.', matchId));
    return;
  }
  await claim(root, matchId, code, false);
}

async function claim(root: HTMLElement, matchId: string, code: string, allowHostClaim: boolean): Promise<void> {
  root.replaceChildren(html('p', {}, `Taking your seat in match ${matchId}…`));
  const host = hostedMatch(matchId)?.host_token;
  try {
    const claimed = await api<ClaimedSeat>(`/api/matches/${encodeURIComponent(matchId)}/claim`, {
      method: 'POST', body: { invite_code: code, allow_host_claim: allowHostClaim }, host,
    });
    rememberSeat(matchId, claimed.seat, claimed.token);
    localStorage.setItem(CLAIMED + matchId + '.' + code, claimed.seat);
    location.replace(playPath(matchId, claimed.seat));
  } catch (e) {
    const err = e as ApiError;
    if (err.error === 'host_claim_refused') {
      root.replaceChildren(confirmHostClaim(() => void claim(root, matchId, code, true), matchId));
      return;
    }
    const why: Record<string, string> = {
      seat_already_claimed: 'This seat is taken: its invite link was used already, and each link works once.',
      seat_not_open: 'This seat was given to a bot by the match\'s host.',
      unknown_invite: 'This invite link opens no seat of this match.',
      not_found: 'There is no such match on this server.',
    };
    root.replaceChildren(failure(why[err.error] ?? 'The seat could not be claimed.', err.message, matchId));
  }
}

function playPath(matchId: string, seat: string): string {
  return `/play?match=${encodeURIComponent(matchId)}&seat=${encodeURIComponent(seat)}`;
}

// The host opened one of its own invite links: it takes the seat only if it says so, since
// the link then no longer works for the player it was meant for.
function confirmHostClaim(confirm: () => void, matchId: string): HTMLElement {
  const button = html('button', { type: 'button', id: 'claim-myself' }, 'Play this seat myself');
  button.addEventListener('click', confirm);
  return html('section', { class: 'join-confirm', id: 'join-confirm' },
    html('h1', {}, 'Play this seat yourself?'),
    html('p', {}, 'You created this match, and this invite link is meant for one of its players: once you take the seat, the link no longer works for anybody else.'),
    html('p', {}, button, ' ', html('a', { href: '/' }, 'back to the lobby'), ' · ',
      html('a', { href: `/match?match=${encodeURIComponent(matchId)}` }, 'watch the match instead')));
}

function failure(title: string, detail: string, matchId: string): HTMLElement {
  const box = html('section', { class: 'join-error', id: 'join-error', role: 'alert' },
    html('h1', {}, 'Cannot join this seat'), html('p', { class: 'error', id: 'join-reason' }, title), html('p', {}, detail));
  const links = html('p', {}, html('a', { href: '/' }, '← Lobby'));
  if (matchId) links.append(' · ', html('a', { href: `/match?match=${encodeURIComponent(matchId)}`, id: 'watch-instead' }, 'watch the match instead'));
  box.append(links);
  return box;
}
