// The match page: board, spectating (live events), the replay scrubber with deep links, and
// playing a seat (/play, with the seat's token from the link's fragment or sessionStorage).

import { api, follow, rememberToken, tokenFor } from './api';
import { drawBoard } from './board';
import { applyEvent, Board, boardOfView, cloneBoard, factionName, seatName, suitName, teamName } from './model';
import { handOf, scoreChart, seatBoards, scoreTrack, turnStrip } from './panels';
import { html, svg } from './svg';
import { textView } from './text';
import { clearingsOf, inWords } from './words';

interface Batch { version: number; events: any[] }

export async function matchPage(root: HTMLElement, playing: boolean): Promise<void> {
  const params = new URLSearchParams(location.search);
  const matchId = params.get('match') ?? '';
  if (playing && location.hash.length > 1) {
    const frag = new URLSearchParams(location.hash.slice(1));
    const t = frag.get('token');
    if (t) rememberToken(matchId, t);
    history.replaceState(null, '', location.pathname + location.search); // drop the secret from the address bar
  }
  const token = playing ? tokenFor(matchId) : '';
  if (playing && !token) {
    root.replaceChildren(html('p', { class: 'error', role: 'alert' }, 'No seat token for this match: open the seat link you were given.'));
    return;
  }
  const [data, infoReply] = await Promise.all([api('/api/game-data'), api(`/api/matches/${matchId}/info`, { token })]);
  const info = infoReply.info;
  const suits: Record<string, string> = {};
  for (const s of info.suits) suits[s.clearing] = suitName(s.suit);
  const factions: Record<string, string> = {};
  const teams: Record<string, string> = {};
  for (const s of info.seats) { factions[seatName(s.seat)] = factionName(s.faction); teams[seatName(s.seat)] = seatName(s.seat)[0]; }
  for (const s of infoReply.initial_view.seats ?? []) teams[seatName(s.seat)] = teamName(s.team);
  const cards: Record<string, any> = {};
  for (const c of data.cards) cards[c.id] = c;
  const initial = boardOfView(infoReply.initial_view);
  const batches: Batch[] = [];
  let live: any = null;
  let legal: any[] = [];
  let position: number | null = params.has('version') ? Number(params.get('version')) : null;
  let over = false;

  const head = html('header', { class: 'match-head' }, html('a', { href: '/' }, '← Lobby'), html('h1', {}, `Match ${matchId}${playing ? ` · you play ${seatName(infoReply.initial_view.viewer)}` : ' · spectating'}`));
  const clocked = Number(info.decision_budget_ms) > 0;
  const clockRule = clocked ? `Clock: ${Number(info.decision_budget_ms) / 1000}s per decision, reserve ${Number(info.reserve_ms) / 1000}s, ${info.strike_limit} strikes` : 'No clock';
  const clock = html('div', { class: 'clock', id: 'clock' }, clockRule);
  const clockLeft = html('strong', { id: 'clock-left' });
  clock.append(' ', clockLeft);
  // The open decision's deadline, from the seat's turn notice, on this browser's clock.
  let deadline = 0;
  let timedDecision = '';
  setInterval(() => {
    const left = deadline ? Math.max(0, deadline - Date.now()) / 1000 : -1;
    clockLeft.textContent = left >= 0 ? `· your time: ${left.toFixed(1)}s left (the budget, then your reserve)` : '';
  }, 200);
  function timeDecision(): void {
    if (!playing || !clocked || !legal.length || !live || live.winner) { deadline = 0; return; }
    const id = String(live.version);
    if (id === timedDecision) return;
    timedDecision = id;
    api(`/api/matches/${matchId}/turn`, { token }).then((t) => {
      deadline = t.deadline_unix_ms > 0 ? Date.now() + Number(t.deadline_unix_ms) - Number(t.server_time_unix_ms) : 0;
    }).catch(() => { deadline = 0; });
  }
  const strip = html('div', { id: 'strip' });
  const track = html('div', { id: 'track' });
  const map = svg('svg', { id: 'board', class: 'board', role: 'img', 'aria-label': 'the board: both maps' }) as SVGSVGElement;
  const prompt = html('div', { id: 'prompt', class: 'prompt', 'aria-live': 'polite' });
  const legalBox = html('ol', { id: 'legal', class: 'legal' });
  const menu = html('div', { id: 'menu', class: 'menu', hidden: '' });
  const hand = html('div', { id: 'hand-box' });
  const boards = html('div', { id: 'boards' });
  const log = html('ol', { id: 'log', class: 'log', tabindex: '0', 'aria-label': 'match log' }); // scrolls: reachable by keyboard
  const chart = html('div', { id: 'chart' });
  const text = html('pre', { id: 'text-view', class: 'text-view', 'aria-label': 'text view of the board' });
  const versionLabel = html('span', { id: 'version' });
  const slider = html('input', { type: 'range', id: 'slider', min: '0', max: '0', value: '0', 'aria-label': 'replay position' }) as HTMLInputElement;
  const button = (id: string, label: string, f: () => void) => { const b = html('button', { id, type: 'button' }, label); b.addEventListener('click', f); return b; };
  const versions = () => [0, ...batches.map((b) => b.version)];
  const go = (v: number | null) => { position = v; render(); };
  const step = (d: number) => { const vs = versions(); const i = vs.indexOf(position ?? vs[vs.length - 1]); go(vs[Math.max(0, Math.min(vs.length - 1, i + d))]); };
  const scrubber = html('div', { class: 'scrubber', id: 'scrubber' },
    button('first', '⏮ first', () => go(0)), button('prev', '◀ previous', () => step(-1)), button('next', 'next ▶', () => step(1)),
    button('last', 'last ⏭', () => go(versions()[versions().length - 1])), button('live', '● live', () => go(null)), slider, versionLabel);
  slider.addEventListener('input', () => go(versions()[Number(slider.value)]));
  const side = html('aside', { class: 'side' }, html('h3', {}, 'Score per round'), chart, html('h3', {}, 'Log'), log);
  const standing = playing ? standingForm(matchId, token) : html('div');
  root.replaceChildren(head, clock, strip, track, scrubber, html('div', { class: 'main' }, map, side), prompt, legalBox, menu, hand, standing, boards,
    html('details', {}, html('summary', {}, 'Text view of the board'), text));

  function boardAt(v: number): Board {
    const b = cloneBoard(initial);
    for (const batch of batches) { if (batch.version > v) break; for (const e of batch.events) applyEvent(b, e); }
    return b;
  }

  function perRound(): { round: number; a: number; b: number }[] {
    const out: { round: number; a: number; b: number }[] = [];
    const b = cloneBoard(initial);
    for (const batch of batches) for (const e of batch.events) {
      applyEvent(b, e);
      if (!b.round) continue;
      const last = out[out.length - 1];
      if (last && last.round === b.round) { last.a = b.scoreA; last.b = b.scoreB; } else out.push({ round: b.round, a: b.scoreA, b: b.scoreB });
    }
    return out;
  }

  function render(): void {
    const vs = versions();
    slider.max = String(vs.length - 1);
    const replaying = position !== null;
    const board = replaying ? boardAt(position as number) : live ? boardOfView(live) : initial;
    slider.value = String(replaying ? Math.max(0, vs.indexOf(position as number)) : vs.length - 1);
    versionLabel.textContent = replaying ? `version ${position} of ${vs[vs.length - 1]}` : `live · version ${board.version}`;
    const url = new URL(location.href);
    if (replaying) url.searchParams.set('version', String(position)); else url.searchParams.delete('version');
    history.replaceState(null, '', url.pathname + url.search);
    const view = !replaying && live ? live : null;
    const targets = new Set<string>(legal.map((c) => c.command?.clearing).filter((c: string) => c));
    drawBoard(map, data, suits, board, { view, factions, teams, targets: view && playing ? targets : undefined, onClearing: playing ? showMenu : undefined });
    // replaying: only what the events tell (round, scores, winner); the rest is the live view's
    const shown = view ?? { round: board.round, score_a: board.scoreA, score_b: board.scoreB, winner: board.winner, version: board.version, seats: [], discard: [], deck_count: '—', phase: 'replay', step: `of version ${board.version}` };
    strip.replaceChildren(turnStrip({ ...shown, max_rounds: info.max_rounds }, Object.keys(factions)));
    track.replaceChildren(scoreTrack(shown));
    boards.replaceChildren(view ? seatBoards(view, cards) : html('p', {}, 'Seat boards show in the live view.'));
    hand.replaceChildren(view && playing ? handOf(view, cards) : html('span'));
    text.textContent = textView(board, data, suits);
    chart.replaceChildren(scoreChart(perRound()));
    renderLegal(view);
  }

  function renderLegal(view: any): void {
    legalBox.replaceChildren();
    prompt.replaceChildren();
    if (!playing) return;
    if (view?.winner) { prompt.append(html('strong', {}, 'The match is over.')); return; }
    const decision = view?.decision;
    if (legal.length && decision && seatName(decision.seat) === seatName(view.viewer) && decision.kind) {
      prompt.append(html('strong', { class: 'decision' }, `Decision: ${decision.kind.replace(/_/g, ' ')}${decision.clearing ? ' in ' + decision.clearing : ''} — choose below`));
    } else if (legal.length) prompt.append(html('strong', {}, 'Your move: click a highlighted clearing or a command below.'));
    else prompt.append(html('span', {}, 'Waiting for the other seats…'));
    for (const c of legal) legalBox.append(html('li', {}, commandButton(c)));
  }

  function commandButton(c: any): HTMLElement {
    const b = html('button', { type: 'button', class: 'cmd', 'data-id': c.id }, c.label || c.id);
    b.addEventListener('click', () => submit(c.id));
    return b;
  }

  function showMenu(clearing: string): void {
    const here = legal.filter((c) => c.command?.clearing === clearing);
    menu.replaceChildren(html('h4', {}, `In ${clearing}`), ...here.map(commandButton), button('menu-close', 'close', () => menu.setAttribute('hidden', '')));
    if (here.length) menu.removeAttribute('hidden');
  }

  let submitting = false;
  async function submit(id: string): Promise<void> {
    if (submitting) return;
    submitting = true;
    menu.setAttribute('hidden', '');
    try {
      const reply = await api(`/api/matches/${matchId}/commands`, { method: 'POST', token, body: { legal_id: id, expected_version: Number(live?.version ?? -1) } });
      legal = reply.next_legal ?? [];
      await refresh();
    } catch (e) {
      prompt.replaceChildren(html('p', { class: 'error', role: 'alert' }, String((e as Error).message)));
      await refresh();
    } finally { submitting = false; }
  }

  // One read of the view at a time: two in flight could land out of order and leave an older
  // version on show until the next event; a refresh asked for meanwhile runs right after.
  let pending = false;
  let reading = false;
  let again = false;
  async function refresh(): Promise<void> {
    if (reading) { again = true; return; }
    reading = true;
    try {
      do {
        again = false;
        const [v, l] = await Promise.all([
          api(`/api/matches/${matchId}/view`, { token }),
          playing ? api(`/api/matches/${matchId}/legal`, { token }) : Promise.resolve({ commands: [] }),
        ]);
        live = v.view;
        legal = l.commands ?? [];
        timeDecision();
        render();
      } while (again);
    } finally { reading = false; }
  }
  function refreshSoon(): void {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; void refresh(); }, 30);
  }

  let round = initial.round;
  function logEvent(env: any): void {
    const e = env.event;
    if (e.kind === 'EVENT_KIND_ROUND_STARTED') round = e.count;
    const words = inWords(e);
    if (!words) return;
    const li = html('li', { 'data-version': String(env.state_version) }, `R${round} · ${e.seat || '—'} · ${words}`);
    const places = clearingsOf(e);
    li.addEventListener('mouseenter', () => places.forEach((c) => map.querySelector(`[data-clearing="${c}"]`)?.classList.add('hl')));
    li.addEventListener('mouseleave', () => map.querySelectorAll('.hl').forEach((n) => n.classList.remove('hl')));
    li.addEventListener('click', () => go(Number(env.state_version)));
    log.prepend(li);
  }

  follow(matchId, 0, (msg) => {
    const env = msg.envelope;
    const v = Number(env.state_version);
    const last = batches[batches.length - 1];
    if (last && last.version === v) last.events.push(env); else batches.push({ version: v, events: [env] });
    logEvent(env);
    if (env.event.kind === 'EVENT_KIND_GAME_ENDED') over = true;
    refreshSoon();
  }, () => { if (!over) refreshSoon(); });
  await refresh();
}

function standingForm(matchId: string, token: string): HTMLElement {
  const kinds = ['ambush', 'field_hospitals', 'feed_eyrie', 'outrage'];
  const policies = ['', 'DECLINE', 'ACCEPT', 'CHEAPEST_CARD', 'FIRST', 'DEFAULT'];
  const form = html('form', { class: 'standing', id: 'standing' }, html('h3', {}, 'Standing answers (answered for you as soon as such a decision opens)'));
  for (const k of kinds) {
    const sel = html('select', { name: k, id: `standing-${k}` }, ...policies.map((p) => html('option', { value: p }, p || 'ask me')));
    form.append(html('label', {}, `${k.replace(/_/g, ' ')} `, sel));
  }
  const status = html('span', { id: 'standing-status' });
  form.append(html('button', { type: 'submit' }, 'Save'), status);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const answers: Record<string, string> = {};
    for (const k of kinds) { const v = (form.querySelector(`#standing-${k}`) as HTMLSelectElement).value; if (v) answers[k] = v; }
    try { await api(`/api/matches/${matchId}/standing-answers`, { method: 'PUT', token, body: { answers } }); status.textContent = ' saved'; }
    catch (e) { status.textContent = ` ${(e as Error).message}`; }
  });
  return form;
}
