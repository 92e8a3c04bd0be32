// Entry point: one page, four routes (/ lobby, /match spectate and replay, /play a seat,
// /join an invite link).

import { joinPage } from './join';
import { lobby } from './lobby';
import { matchPage } from './match';

const root = document.getElementById('app') as HTMLElement;
const routes: Record<string, () => Promise<void>> = {
  '/match': () => matchPage(root, false),
  '/play': () => matchPage(root, true),
  '/join': () => joinPage(root),
};
const run = (routes[location.pathname] ?? (() => lobby(root)))();
run.catch((e: Error) => {
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = `Could not load: ${e.message}`;
  root.replaceChildren(p);
});
