// The match page: board, spectating (live events), the replay scrubber with deep links, and
// playing a seat (/play, with the seat's token from the link's fragment or sessionStorage).

import './play.css';
import { Actor } from './act';
import { api, follow, rememberToken, tokenFor } from './api';
import { battlePanel, promptText } from './battle';
import { drawBoard } from './board';
import { Legal } from './commands';
import { Names } from './names';
import { TurnSignal } from './notify';
import type { CardData, CommandReply, Envelope, GameData, GameEvent, LegalReply, MatchInfoReply, TurnNotice, View, ViewReply, WatchedEvent } from './contract';
import { applyEvent, Board, boardOfView, cloneBoard, factionName, seatName, suitName, teamName } from './model';
import { handOf, scoreChart, seatBoards, scoreTrack, turnStrip } from './panels';
import { html, svg } from './svg';
import { textView } from './text';
import { clearingsOf, inWords } from './words';

interface Batch { version: number; events: Envelope[] }

// A deep link's version: digits only, else refused (with the reason shown) and the page
// opens live; one past the match's last version is refused once the view says how far it is.
export function versionParam(raw: string | null): { version: number | null; refused: string } {
  if (raw === null || raw === '') return { version: null, refused: '' };
  if (!/^\d{1,15}$/.test(raw)) return { version: null, refused: `This link asks for version “${raw.slice(0, 40)}”, which is not a version number: showing the match live instead.` };
  return { version: Number(raw), refused: '' };
}

export async function matchPage(root: HTMLElement, playing: boolean): Promise<void> {
  ensureStyle();
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
  const [data, infoReply] = await Promise.all([api<GameData>('/api/game-data'), api<MatchInfoReply>(`/api/matches/${matchId}/info`, { token })]);
  const info = infoReply.info;
  const suits: Record<string, string> = {};
  for (const s of info.suits) suits[s.clearing] = suitName(s.suit);
  const factions: Record<string, string> = {};
  const teams: Record<string, string> = {};
  for (const s of info.seats) { factions[seatName(s.seat)] = factionName(s.faction); teams[seatName(s.seat)] = seatName(s.seat)[0]; }
  for (const s of infoReply.initial_view.seats) teams[seatName(s.seat)] = teamName(s.team);
  const cards: Record<string, CardData> = {};
  for (const c of data.cards) cards[c.id] = c;
  const names = new Names(data, factions);
  const me = playing ? seatName(infoReply.initial_view.viewer) : '';
  const initial = boardOfView(infoReply.initial_view);
  const batches: Batch[] = [];
  let live: View | null = null;
  let legal: Legal[] = [];
  let legalVersion = -1;
  const asked = versionParam(params.get('version'));
  let position: number | null = asked.version;
  let checkedPosition = false;
  let over = false;

  const head = html('header', { class: 'match-head' }, html('a', { href: '/' }, '← Lobby'), html('h1', {}, `Match ${matchId}${playing ? ` · you play ${names.seat(me)}` : ' · spectating'}`));
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
    const id = String(legalVersion);
    if (id === timedDecision) return;
    timedDecision = id;
    api<TurnNotice>(`/api/matches/${matchId}/turn`, { token }).then((t) => {
      deadline = Number(t.deadline_unix_ms) > 0 ? Date.now() + Number(t.deadline_unix_ms) - Number(t.server_time_unix_ms) : 0;
    }).catch(() => { deadline = 0; });
  }
  const strip = html('div', { id: 'strip' });
  const track = html('div', { id: 'track' });
  const map = svg('svg', { id: 'board', class: 'board', role: 'img', 'aria-label': 'the board: both maps' }) as SVGSVGElement;
  const notices = html('div', { id: 'notices', class: 'notices', 'aria-live': 'polite' });
  const prompt = html('div', { id: 'prompt', class: 'prompt', 'aria-live': 'polite' });
  const errorBox = html('div', { id: 'error-box', class: 'error-box', role: 'alert' });
  const battleBox = html('div', { id: 'battle-box' });
  const onMap = new Set<string>(data.clearings.map((c) => c.id));
  const actor = new Actor(names, onMap, (c) => { clearError(); void submit(c); });
  actor.redraw = () => drawMap();
  const signal = new TurnSignal();
  const auto = html('input', { type: 'checkbox', id: 'auto-forced' });
  auto.checked = localStorage.getItem('frontier.autoForced') !== 'off';
  auto.addEventListener('change', () => localStorage.setItem('frontier.autoForced', auto.checked ? 'on' : 'off'));
  const options = playing ? html('div', { class: 'play-options' }, signal.root, html('label', {}, auto, ' play my only choice for me')) : html('div');
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
  const standing = playing ? standingForm(matchId, token) : html('div');
  const details = html('details', {}, html('summary', {}, 'Text view of the board'), text);
  if (playing) {
    // a seat acts beside the board (what is asked, the choices, then the log), not below it
    const side = html('aside', { class: 'side acting' }, prompt, errorBox, battleBox, actor.root, options,
      html('h3', {}, 'Log'), log, html('h3', {}, 'Score per round'), chart);
    root.replaceChildren(head, clock, notices, strip, track, scrubber, html('div', { class: 'main playing' }, map, side), hand, standing, boards, details);
  } else {
    const side = html('aside', { class: 'side' }, html('h3', {}, 'Score per round'), chart, html('h3', {}, 'Log'), log);
    root.replaceChildren(head, clock, notices, strip, track, scrubber, html('div', { class: 'main' }, map, side), prompt, errorBox, battleBox, actor.root, options, hand, standing, boards, details);
  }
  if (asked.refused) notify(asked.refused, 'refused-link');

  function notify(message: string, kind: string): void {
    notices.append(html('p', { class: `notice ${kind}`, 'data-kind': kind }, message));
  }
  function clearError(): void { errorBox.replaceChildren(); }
  // the next action, on the map or in the panel, takes a refusal's reason away
  map.addEventListener('click', clearError, { capture: true });
  actor.root.addEventListener('click', clearError, { capture: true });

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

  let shownBoard: Board = initial;
  function drawMap(): void {
    const view = position === null && live ? live : null;
    const mine = !!view && playing && !view.winner;
    drawBoard(map, data, suits, shownBoard, { view, factions, teams, targets: mine ? actor.targets() : undefined, onClearing: mine ? (id) => actor.onClearing(id, drawMap) : undefined,
      onDrag: mine ? (from, to) => actor.onDrag(from, to, drawMap) : undefined });
    if (mine) actor.decorate(map);
  }

  function render(): void {
    if (!checkedPosition && live && position !== null) {
      checkedPosition = true;
      if (position > Number(live.version)) {
        notify(`This link asks for version ${position}, but the match is at version ${live.version}: showing it live instead.`, 'refused-link');
        position = null;
      }
    }
    const vs = versions();
    slider.max = String(vs.length - 1);
    const replaying = position !== null;
    const board = replaying ? boardAt(position as number) : live ? boardOfView(live) : initial;
    shownBoard = board;
    slider.value = String(replaying ? Math.max(0, vs.indexOf(position as number)) : vs.length - 1);
    versionLabel.textContent = replaying ? `version ${position} of ${vs[vs.length - 1]}` : `live · version ${board.version}`;
    const url = new URL(location.href);
    if (replaying) url.searchParams.set('version', String(position)); else url.searchParams.delete('version');
    history.replaceState(null, '', url.pathname + url.search);
    const view = !replaying && live ? live : null;
    drawMap();
    // replaying: only what the events tell (round, scores, winner); the rest is the live view's
    const shown = view ?? { round: board.round, score_a: board.scoreA, score_b: board.scoreB, winner: board.winner, discard: [], deck_count: '—', phase: 'replay', step: `of version ${board.version}` };
    strip.replaceChildren(turnStrip({ ...shown, max_rounds: info.max_rounds }, Object.keys(factions), names));
    track.replaceChildren(scoreTrack(shown));
    boards.replaceChildren(view ? seatBoards(view, cards, names) : html('p', {}, 'Seat boards show in the live view.'));
    hand.replaceChildren(view && playing ? handOf(view, cards) : html('span'));
    text.textContent = textView(board, names, data, suits);
    chart.replaceChildren(scoreChart(perRound()));
    const battle = view ? battlePanel(view, names) : null;
    battleBox.replaceChildren(...(battle ? [battle] : []));
    if (playing && view) prompt.replaceChildren(html('strong', { class: view.decision?.kind && legal.length ? 'decision' : '' }, promptText(view, names, legal.length > 0)));
  }

  // The seat's choices changed (once per command): the panel is rebuilt, the signal rung, and
  // a sole choice played when the player asked for that.
  let lastLegal: Legal[] | null = null;
  let autoTried = -1;
  function choicesChanged(): void {
    if (!playing || legal === lastLegal) return;
    lastLegal = legal;
    const ownTurn = live && seatName(live.turn_seat) === me && !seatName(live.decision?.seat) ? `${live.round}:${me}` : '';
    const next = actor.setLegal(live?.winner ? [] : legal, ownTurn, Number(live?.march_left ?? 0));
    drawMap(); // the map's highlighted clearings are the new choices'
    signal.update(legal.length > 0 && !live?.winner, promptText(live ?? {}, names, true));
    // played after the current command's handling is over (a macrotask), never inside it
    if (next) setTimeout(() => void submit(next), 0);
    else if (auto.checked && legal.length === 1 && autoTried !== legalVersion && !live?.winner && position === null) {
      autoTried = legalVersion;
      const only = legal[0];
      notify(`Played your only choice: ${names.scrub(only.label ?? '')}`, 'auto');
      for (const old of Array.from(notices.querySelectorAll('.notice.auto')).slice(0, -1)) old.remove(); // the latest only
      actor.hold(true);
      setTimeout(() => void submit(only), 0);
    }
  }

  // A read of the view or the choices that a command overtook leaves the page alone: it may
  // answer for the version the command was sent at, whose choices would replace the ones the
  // reply brings (and drop a march's second move asked for with one tap, or leave the page on
  // a march's choices after it is over).  A read answered while the command is on its way is
  // made again once the reply is in; one answered after the reply, at once.
  let submitting = false;
  let inFlight = false;
  let missed = false;
  let sent = 0; // commands sent so far: a read that began before the latest one is stale
  async function submit(c: Legal): Promise<void> {
    if (submitting) return;
    submitting = true;
    try {
      inFlight = true;
      sent += 1;
      const reply = await api<CommandReply>(`/api/matches/${matchId}/commands`, { method: 'POST', token, body: { legal_id: c.id, expected_version: legalVersion } }).finally(() => { inFlight = false; });
      for (const e of reply.events) ownEvents.set(Number(e.state_version), e);
      for (const e of reply.events) relog(e);
      const view = reply.view;
      if (view && Number(view.version) >= Number(live?.version ?? -1)) live = view;
      if (view && String(view.version) === String(reply.version)) {
        legal = reply.next_legal;
        legalVersion = Number(reply.version);
        render();
        choicesChanged();
      } else await refresh();
      if (missed) { missed = false; refreshSoon(); }
    } catch (e) {
      missed = false;
      errorBox.replaceChildren(html('p', { class: 'error', id: 'command-error' }, `Not played: ${(e as Error).message}`));
      lastLegal = null; // the list is drawn again, taking clicks, even when it did not change
      await refresh();
    } finally { submitting = false; }
  }

  // One read at a time: two in flight could land out of order and leave an older version on
  // show until the next event; a refresh asked for meanwhile runs right after.  The legal
  // list is read only when the view says the match waits for this seat.
  let pending = false;
  let reading = false;
  let again = false;
  async function refresh(): Promise<void> {
    if (reading) { again = true; return; }
    reading = true;
    try {
      do {
        again = false;
        const at = sent;
        const v = (await api<ViewReply>(`/api/matches/${matchId}/view`, { token })).view;
        if (overtaken(at)) continue;
        if (live && Number(v.version) < Number(live.version)) continue;
        live = v;
        if (playing && seatName(v.to_act) === me && !v.winner) {
          const l = await api<LegalReply>(`/api/matches/${matchId}/legal`, { token });
          if (overtaken(at)) continue;
          legal = l.commands;
          legalVersion = Number(l.version);
        } else { legal = []; legalVersion = Number(v.version); }
        timeDecision();
        render();
        choicesChanged();
      } while (again);
    } finally { reading = false; }
  }
  // A command was sent since the read `at` began: the read is dropped and made again (after
  // the reply when it is still on its way).
  function overtaken(at: number): boolean {
    if (inFlight) missed = true;
    else if (sent !== at) again = true;
    return inFlight || sent !== at;
  }
  function refreshSoon(): void {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; void refresh(); }, 30);
  }

  let round = initial.round;
  const ownEvents = new Map<number, Envelope>(); // this seat's own events (its draws shown), by version
  const lines = new Map<number, { li: HTMLElement; round: number }>();
  function lineText(e: GameEvent, r: number): string | null {
    const words = inWords(e, names);
    if (!words) return null;
    const who = e.seat ? (seatName(e.seat) === me ? `you, ${names.seat(e.seat)}` : names.seat(e.seat)) : 'table';
    return `R${r} · ${who} · ${words}`;
  }
  function relog(env: Envelope): void {
    const line = lines.get(Number(env.state_version));
    const words = line && env.event ? lineText(env.event, line.round) : null;
    if (line && words) line.li.textContent = words;
  }
  function logLine(version: number, words: string, places: string[]): void {
    const li = html('li', { 'data-version': String(version) }, words);
    li.addEventListener('mouseenter', () => places.forEach((c) => map.querySelector(`[data-clearing="${c}"]`)?.classList.add('hl')));
    li.addEventListener('mouseleave', () => map.querySelectorAll('.hl').forEach((n) => n.classList.remove('hl')));
    li.addEventListener('click', () => go(version));
    log.prepend(li);
    lines.set(version, { li, round });
  }
  function logEvent(msg: WatchedEvent, env: Envelope): void {
    const v = Number(env.state_version);
    const e: GameEvent = ownEvents.get(v)?.event ?? env.event ?? {};
    if (e.kind === 'EVENT_KIND_ROUND_STARTED') round = e.count ?? 0;
    const record = msg.decision;
    if (record?.answered_by === 'ANSWERED_BY_TIMEOUT' && e.seat) {
      const said = `${names.seat(e.seat)} ran out of time: the server played for them (strike ${record.strikes} of ${info.strike_limit}).`;
      logLine(v, `R${round} · ${said}`, []);
      notify(said, 'strike');
    }
    if (record?.taken_over && e.seat) {
      const said = `${names.seat(e.seat)} missed ${record.strikes} deadlines: the built-in bot plays the seat from now on.`;
      logLine(v, `R${round} · ${said}`, []);
      notify(said, 'takeover');
    }
    const words = lineText(e, round);
    if (words) logLine(v, words, clearingsOf(e));
    if (e.kind === 'EVENT_KIND_GAME_ENDED') {
      over = true;
      notify(e.text === 'draw' ? 'The match ended in a draw.' : `The match is over: team ${e.text} wins.`, 'winner');
    }
  }

  // The server ends the event stream when the match ends, and says how: an abandoned match
  // adds no event, so its end is the only word of it.  A stream that broke off for good
  // (status '') leaves the page on its last view, read once more.
  function ended(status: string): void {
    if (over) return;
    if (status !== 'MATCH_STATUS_ABANDONED') { refreshSoon(); return; }
    over = true;
    notify('The match was abandoned: it ended without a winner.', 'abandoned');
    logLine(Number(live?.version ?? 0), `R${round} · table · the match was abandoned`, []);
    legal = [];
    lastLegal = null;
    choicesChanged();
  }

  follow(matchId, 0, (msg) => {
    const env = msg.envelope;
    if (!env) return;
    const v = Number(env.state_version);
    const last = batches[batches.length - 1];
    if (last && last.version === v) last.events.push(env); else batches.push({ version: v, events: [env] });
    logEvent(msg, env);
    // this seat's own command already brought its view: only others' moves need a read
    if (!live || v > Number(live.version)) refreshSoon();
    else if (position !== null) render();
  }, ended);
  await refresh();
}

// The page's own styles (play.css, bundled next to app.js as app.css), linked once.
function ensureStyle(): void {
  if (document.querySelector('link[data-play-css]')) return;
  const link = html('link', { rel: 'stylesheet', href: '/static/app.css', 'data-play-css': '' });
  document.head.append(link);
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
