// Entry point: one page, four routes (/ lobby, /match spectate and replay, /play a seat,
// /join an invite link).  A seat link or host link first leaves its secret in this
// browser's storage (links.ts); below a match, the seat's own link and the host's controls.

import { joinPage } from './join';
import { adoptFragment, hostPanel, seatPanel } from './links';
import { lobby } from './lobby';
import { matchPage } from './match';

const root = document.getElementById('app') as HTMLElement;
const routes: Record<string, () => Promise<void>> = {
  '/match': () => matchPage(root, false),
  '/play': () => matchPage(root, true),
  '/join': () => joinPage(root),
};

function fail(message: string): void {
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = message;
  root.replaceChildren(p);
}

async function start(): Promise<void> {
  const refused = await adoptFragment();
  if (refused) { fail(refused); return; }
  const matchId = new URLSearchParams(location.search).get('match') ?? '';
  if (matchId && location.pathname === '/play') root.after(seatPanel(matchId), hostPanel(matchId));
  if (matchId && location.pathname === '/match') root.after(hostPanel(matchId));
  await (routes[location.pathname] ?? (() => lobby(root)))();
}

start().catch((e: Error) => fail(`Could not load: ${e.message}`));
