// Entry point: one page, three routes (/ lobby, /match spectate and replay, /play a seat).

import { lobby } from './lobby';
import { matchPage } from './match';

const root = document.getElementById('app') as HTMLElement;
const run = location.pathname === '/match' ? matchPage(root, false) : location.pathname === '/play' ? matchPage(root, true) : lobby(root);
run.catch((e: Error) => {
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = `Could not load: ${e.message}`;
  root.replaceChildren(p);
});
