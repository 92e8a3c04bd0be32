// The acting panel of a seat's page: choices from the map (a clearing's menu; a move as
// source -> destination, moving all that may go unless the count stepper says fewer; a
// clearing with a single command plays it on one tap; the last clearing command can be
// repeated in another clearing with one tap), a decision's answers by the prompt, the rest
// grouped by verb, and keyboard shortcuts for the step's end.  It draws from the arrangement
// of commands.ts; the page gives it each new legal list once, and it tells the page which
// command the player chose.

import { againKey, arrange, Arranged, Choice, choicesOf, isMove, Legal, movesFrom, page, reachable, repeatable, VERBS } from './commands';
import { shortcutOf } from './keys';
import { humane, Names } from './names';
import { html } from './svg';

export class Actor {
  readonly root = html('div', { id: 'act', class: 'act' });
  private arranged: Arranged = arrange([], new Set());
  private selected = ''; // the clearing whose menu is open
  private dest = ''; // the destination chosen for a move out of `selected`
  private opened = new Map<string, Legal[]>(); // a list's opened group, by the list's key
  private pages = new Map<string, number>();

  private again: { key: string; what: string } | null = null; // the clearing command a tap repeats
  private againAt = new Map<string, Legal>(); // where it may be repeated now
  private done = ''; // what the player's last choice played, in words

  constructor(private readonly names: Names, private readonly onMap: Set<string>, private readonly choose: (c: Legal) => void) {
    document.addEventListener('keydown', (e) => this.onKey(e));
  }

  // A new legal list (once per command): the selection stays where it still offers something.
  // `turn` names the turn it belongs to (round and seat): while the player ends that turn
  // step by step ("End turn"), the next step's end comes back to be played at once.
  // `marchLeft` is the view's: the moves left in a march under way (0: none under way).
  setLegal(legal: Legal[], turn: string, marchLeft = 0): Legal | null {
    this.root.classList.remove('busy');
    this.arranged = arrange(legal, this.onMap);
    this.opened.clear();
    this.pages.clear();
    if (!this.arranged.byClearing.has(this.selected)) this.selected = '';
    if (!this.selected || !movesFrom(this.here(), this.selected).has(this.dest)) this.dest = '';
    this.root.dataset.commands = String(legal.length);
    this.root.dataset.reachable = String(reachable(this.arranged));
    if (turn !== this.turn) this.again = null;
    this.turn = turn;
    this.marchLeft = marchLeft;
    this.findAgain();
    const then = this.goOn();
    if (then) {
      this.render();
      this.hold(true);
      return then;
    }
    if (this.endingTurn && this.endingTurn === turn && !this.arranged.answers.length && this.arranged.ends.length) {
      this.render();
      this.hold(true);
      return this.arranged.ends[0];
    }
    this.endingTurn = '';
    this.render();
    return null;
  }

  // While a command is on its way the choices stay on show but take no click (a second click
  // would be refused, or worse, answer the next question); the next list or a refusal ends it.
  hold(on: boolean): void {
    this.root.classList.toggle('busy', on);
    for (const b of Array.from(this.root.querySelectorAll('button'))) b.disabled = on;
  }

  private turn = '';
  private endingTurn = '';
  private marchLeft = 0;
  private then: { from: string; to: string; count: number } | null = null; // a march's second move, asked for

  // A march's two moves asked for with one tap (the far clearing): once the first is played,
  // the second, when it is legal in this march as asked (else the march stops where it is and
  // says so; a fee card to choose is asked).
  private goOn(): Legal | null {
    const t = this.then;
    this.then = null;
    if (!t || this.marchLeft !== 1) return null;
    if (this.arranged.answers.length) { this.done += ` · stopped in ${this.names.place(t.from)}: a question comes first`; return null; }
    const way = (movesFrom(this.arranged.byClearing.get(t.from) ?? [], t.from).get(t.to) ?? []).filter((c) => c.command?.clearing === t.from && (c.command?.count ?? 0) === t.count);
    if (way.length === 1) { this.done += ` · ${this.labelOf(way[0])}`; this.selected = t.to; return way[0]; }
    if (way.length > 1) { this.selected = t.from; this.dest = t.to; this.destCount = t.count; return null; }
    this.done += ` · stopped in ${this.names.place(t.from)}: ${this.names.place(t.to)} cannot be reached from there in this march`;
    return null;
  }

  // Where one tap plays both moves of a march not yet begun: a clearing a path away from one
  // of the selected clearing's destinations (and no destination itself), with the clearing
  // passed through.  Only where that first move is one command (no fee card to choose), and
  // not across a Border Bridge for the second (its fee card may be missing from the hand).
  private farAway(): Map<string, string> {
    const out = new Map<string, string>();
    if (!this.selected || this.dest || this.marchLeft !== 0) return out;
    const moves = movesFrom(this.here(), this.selected);
    for (const [mid, cmds] of moves) {
      const first = cmds.filter((c) => c.command?.clearing === this.selected && (c.command?.kind ?? '').endsWith('MARCH'));
      if (!first.length || !this.onMap.has(mid) || this.firstMove(first) === null) continue;
      for (const far of this.names.near(mid)) {
        if (far !== this.selected && !moves.has(far) && !out.has(far) && this.onMap.has(far)) out.set(far, mid);
      }
    }
    return out;
  }

  // The move a destination's tap plays (the count the stepper says): the command, or null when
  // a fee card is still to be chosen among several.
  private firstMove(cmds: Legal[]): Legal | null {
    const n = this.countOf(cmds);
    const these = cmds.filter((c) => (c.command?.count ?? 0) === n);
    return these.length === 1 ? these[0] : null;
  }

  // How many a move to one destination takes: as many as the stepper says (all, by default),
  // or fewer where fewer may go.
  private countOf(cmds: Legal[]): number {
    const counts = cmds.map((c) => c.command?.count ?? 0);
    const fit = counts.filter((n) => !this.howMany || n <= this.howMany);
    return fit.length ? Math.max(...fit) : Math.min(...counts);
  }

  // The one command a tap on a clearing plays at once: its only command (a move excepted,
  // which still needs its destination), else the repeated command while the repeat is on.
  private oneTap(id: string): Legal | null {
    const here = this.arranged.byClearing.get(id) ?? [];
    if (here.length === 1 && !isMove(here[0])) return here[0];
    return this.againAt.get(id) ?? null;
  }

  // Where the last clearing command may be played again (one of its kind, with its piece);
  // nothing while a decision waits for an answer.
  private findAgain(): void {
    this.againAt.clear();
    if (!this.again || this.arranged.answers.length) { this.again = null; return; }
    for (const [id, cmds] of this.arranged.byClearing) {
      const same = cmds.filter((c) => againKey(c) === this.again?.key);
      if (same.length === 1) this.againAt.set(id, same[0]);
    }
    if (!this.againAt.size) this.again = null;
  }

  // The clearings the map highlights: where a command is, or the chosen move's destinations.
  targets(): Set<string> {
    if (this.selected && !this.dest) {
      const to = [...movesFrom(this.here(), this.selected).keys(), ...this.farAway().keys()].filter((c) => this.onMap.has(c));
      if (to.length) return new Set([this.selected, ...to]);
    }
    return new Set(this.arranged.byClearing.keys());
  }

  // Where a move may start, with its destinations on the map: what a drag may take where.
  private movable(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (this.dest) return out;
    for (const [id, cmds] of this.arranged.byClearing) {
      const to = [...movesFrom(cmds, id).keys()].filter((c) => c !== id && this.onMap.has(c));
      if (to.length) out.set(id, to);
    }
    return out;
  }

  // A move dragged from one place to another: as the taps on both would be (the source, then
  // the destination or the clearing one path beyond); a drop anywhere else selects the source.
  onDrag(from: string, to: string, redraw: () => void): void {
    if (this.root.classList.contains('busy')) return;
    if (from !== this.selected) { this.selected = from; this.dest = ''; this.howMany = 0; }
    if (movesFrom(this.here(), from).has(to) || this.farAway().has(to)) { this.onClearing(to, redraw); return; }
    this.opened.clear();
    this.render();
    redraw();
  }

  // Marks the selection on the freshly drawn map (board.ts draws the highlighted targets),
  // and where a move may be dragged from (with its destinations, for a reader of the page).
  decorate(map: SVGSVGElement): void {
    const to = this.selected && !this.dest ? movesFrom(this.here(), this.selected) : new Map<string, Legal[]>();
    const far = this.farAway();
    const movable = this.movable();
    for (const g of Array.from(map.querySelectorAll<SVGGElement>('g.clearing, g.forest'))) {
      const from = movable.get(g.dataset.clearing ?? g.dataset.forest ?? '');
      g.classList.toggle('movable', !!from);
      if (from) g.dataset.to = from.join(' '); else delete g.dataset.to;
    }
    for (const g of Array.from(map.querySelectorAll<SVGGElement>('g.clearing'))) {
      const id = g.dataset.clearing ?? '';
      g.classList.toggle('selected', id === this.selected);
      g.classList.toggle('dest', to.has(id) && id !== this.selected);
      g.classList.toggle('dest2', far.has(id));
      g.classList.toggle('again', this.againAt.has(id) && !to.has(id) && !far.has(id) && id !== this.selected);
    }
  }

  onClearing(id: string, redraw: () => void): void {
    if (this.root.classList.contains('busy')) return; // the map waits for the command too
    const moves = this.selected ? movesFrom(this.here(), this.selected) : new Map<string, Legal[]>();
    const one = this.oneTap(id);
    const far = this.farAway().get(id);
    if (this.selected && !this.dest && id !== this.selected && moves.has(id)) this.pickDest(id);
    else if (far) { const first = this.firstMove((moves.get(far) ?? []).filter((c) => c.command?.clearing === this.selected)); if (first) { this.then = { from: far, to: id, count: first.command?.count ?? 0 }; this.run(first); return; } }
    else if (one && id !== this.selected) { this.selected = ''; this.run(one); return; }
    else if (this.arranged.byClearing.has(id)) { this.selected = id === this.selected ? '' : id; this.dest = ''; this.howMany = 0; }
    else { this.selected = ''; this.dest = ''; }
    this.opened.clear();
    this.render();
    redraw();
  }

  private here(): Legal[] { return this.arranged.byClearing.get(this.selected) ?? []; }

  // A destination clicked: the move of as many as the player set (all, by default; fewer
  // where fewer may go) plays at once; only a choice of fee card asks a further question.
  private pickDest(to: string): void {
    const cmds = movesFrom(this.here(), this.selected).get(to) ?? [];
    const one = this.firstMove(cmds);
    if (one) { this.run(one); return; }
    this.dest = to;
    this.destCount = this.countOf(cmds);
  }

  private howMany = 0; // how many a destination's click moves; 0 = all that may go
  private destCount = 0; // the count whose fee card is being chosen

  private run(c: Legal): void {
    // a move goes on from where it ended: its destination's menu opens next
    if (isMove(c) && c.command?.clearing === this.selected) this.selected = c.command?.to ?? '';
    this.dest = '';
    this.done = this.labelOf(c);
    // a clearing command (a build, a recruit, a placement...) may be repeated elsewhere by a tap
    if (repeatable(c, this.onMap)) this.again = { key: againKey(c), what: (VERBS.find(([v]) => v === c.verb)?.[1] ?? 'Do it') + (c.command?.piece ? ` ${humane(c.command.piece)}` : '') };
    else if (this.again && againKey(c) !== this.again.key) this.again = null;
    this.hold(true);
    this.choose(c);
  }

  private render(): void {
    const a = this.arranged;
    const parts: HTMLElement[] = [];
    if (this.done) parts.push(html('p', { class: 'act-done', id: 'act-done', 'aria-live': 'polite' }, `Played: ${this.done}`));
    if (a.ends.length) {
      const ends = html('div', { class: 'act-ends' }, ...a.ends.map((c, i) => this.keyed(this.button(c.label || 'End this step', c, 'cmd end'), i ? '' : 'E')));
      if (!a.answers.length && this.turn) {
        const whole = html('button', { type: 'button', class: 'end-turn', id: 'end-turn', title: 'ends each step in turn, stopping at one that cannot simply end' }, 'End turn');
        whole.addEventListener('click', () => this.endTurn());
        ends.append(this.keyed(whole, 'T'));
      }
      parts.push(ends);
    }
    if (this.again) {
      const stop = this.keyed(this.plain('stop', () => { this.again = null; this.againAt.clear(); this.render(); this.redraw(); }), 'Escape');
      parts.push(html('section', { class: 'act-again', id: 'act-again' }, `↻ ${this.again.what} again: tap a clearing ringed in purple dashes (${this.againAt.size}) `, stop));
    }
    if (a.answers.length) parts.push(this.section('Your answer', 'answers', a.answers, 'act-answers'));
    if (this.selected) parts.push(this.clearingMenu());
    const places = [...a.byClearing.keys()];
    if (places.length) {
      const choices: Choice[] = places.map((id) => ({ label: this.names.place(id), group: [] }));
      parts.push(html('section', { class: 'act-places' }, html('h4', {}, 'On the map: click a highlighted clearing, or'),
        this.list('places', choices, (ch) => this.onClearing(this.idOfPlace(ch.label), () => this.redraw()))));
    }
    for (const [verb, heading] of VERBS) {
      const cmds = a.byVerb.get(verb);
      if (cmds?.length) parts.push(this.section(heading, `verb:${verb}`, cmds, 'act-verb'));
    }
    this.root.replaceChildren(...parts);
    if (this.root.classList.contains('busy')) this.hold(true); // redrawn while a command is on its way
  }

  private endTurn(): void {
    if (!this.arranged.ends.length || this.root.classList.contains('busy')) return;
    this.endingTurn = this.arranged.answers.length ? '' : this.turn;
    this.run(this.arranged.ends[0]);
  }

  // The keyboard: E ends the step, T the turn, D declines a decision, Escape closes the open
  // menu (or stops the repeat), - and + set how many a move takes.  Keys typed into a field,
  // or with a modifier, are the browser's.
  private onKey(e: KeyboardEvent): void {
    const key = shortcutOf(e);
    if (!key || !this.root.isConnected || this.root.classList.contains('busy')) return;
    const a = this.arranged;
    const decline = a.answers.find((c) => (c.command?.kind ?? '').endsWith('DECLINE'));
    if (key === 'e' && a.ends.length) this.run(a.ends[0]);
    else if (key === 't' && a.ends.length && this.turn) this.endTurn();
    else if (key === 'd' && decline) this.run(decline);
    else if (key === 'Escape' && (this.selected || this.again || this.opened.size)) { this.selected = ''; this.dest = ''; this.again = null; this.againAt.clear(); this.opened.clear(); this.render(); this.redraw(); }
    else if ((key === '-' || key === '+') && this.selected && !this.dest) this.stepCount(key === '+' ? 1 : -1);
    else return;
    e.preventDefault();
  }

  private keyed(b: HTMLElement, key: string): HTMLElement {
    if (!key) return b;
    b.setAttribute('aria-keyshortcuts', key);
    b.append(html('kbd', { class: 'key' }, key === 'Escape' ? 'Esc' : key));
    return b;
  }

  // The map redraws through the page (set by it): the selection changed from the panel.
  redraw: () => void = () => undefined;

  private idOfPlace(name: string): string {
    return [...this.arranged.byClearing.keys()].find((id) => this.names.place(id) === name) ?? '';
  }

  private clearingMenu(): HTMLElement {
    const where = this.names.place(this.selected);
    const box = html('section', { class: 'act-menu', id: 'act-menu', 'data-clearing': this.selected }, html('h3', {}, where));
    const moves = movesFrom(this.here(), this.selected);
    if (this.dest) {
      const cmds = (moves.get(this.dest) ?? []).filter((c) => (c.command?.count ?? 0) === this.destCount);
      const choices: Choice[] = cmds.map((c) => ({ label: this.labelOf(c), legal: c }));
      box.append(html('h4', {}, `${where} → ${this.names.place(this.dest)}: which card pays?`), this.list('count', choices, (ch) => this.take(ch, 'count')),
        this.plain('◂ other destination', () => { this.dest = ''; this.render(); this.redraw(); }));
      return box;
    }
    if (moves.size) {
      const dests: Choice[] = [...moves.keys()].map((to) => ({ label: `→ ${this.names.place(to)}`, group: moves.get(to) ?? [] }));
      box.append(this.countPicker());
      const far = this.farAway().size ? ' (one more path away, dotted: both moves of the march)' : '';
      box.append(html('h4', {}, `Move from here: click a destination on the map${far}, or`), this.list('dest', dests, (ch) => {
        const to = [...moves.keys()].find((t) => `→ ${this.names.place(t)}` === ch.label) ?? '';
        this.onClearing(to, () => this.redraw());
      }));
    }
    const rest = this.here().filter((c) => !isMove(c));
    for (const [verb, heading] of VERBS) {
      const cmds = rest.filter((c) => (c.verb ?? 'COMMAND_VERB_UNSPECIFIED') === verb);
      if (cmds.length) box.append(this.section(heading, `here:${verb}`, cmds, 'act-verb'));
    }
    return box;
  }

  // The counts a move out of the selected clearing may take, largest first.
  private counts(): number[] {
    const moves = movesFrom(this.here(), this.selected);
    return [...new Set([...moves.values()].flat().map((c) => c.command?.count ?? 0))].sort((x, y) => y - x);
  }

  // One step up or down the counts (0, "all", is the top).
  private stepCount(by: number): void {
    const counts = this.counts();
    if (counts.length < 2) return;
    const at = this.howMany ? counts.indexOf(this.howMany) : 0;
    const next = Math.max(0, Math.min(counts.length - 1, at - by));
    this.howMany = next === 0 ? 0 : counts[next];
    this.render();
  }

  // How many a destination's tap moves: a stepper in place, at all (the usual choice) unless
  // set lower before the tap.
  private countPicker(): HTMLElement {
    const counts = this.counts();
    const box = html('div', { class: 'how-many', id: 'how-many' }, 'How many: ');
    if (counts.length < 2) { box.append(html('output', { class: 'count-value' }, String(counts[0] ?? ''))); return box; }
    const shown = this.howMany ? `${this.howMany} of ${counts[0]}` : `all ${counts[0]}`;
    const less = this.plain('−', () => this.stepCount(-1));
    const more = this.plain('+', () => this.stepCount(1));
    less.setAttribute('aria-keyshortcuts', '-');
    more.setAttribute('aria-keyshortcuts', '+');
    less.setAttribute('aria-label', 'move fewer');
    more.setAttribute('aria-label', 'move more');
    if (this.howMany === Math.min(...counts)) less.setAttribute('disabled', '');
    if (!this.howMany) more.setAttribute('disabled', '');
    box.append(less, html('output', { class: 'count-value', id: 'count-value', 'aria-live': 'polite' }, shown), more);
    return box;
  }

  private section(heading: string, key: string, cmds: Legal[], cls: string): HTMLElement {
    const choices = choicesOf(cmds, (c) => this.labelOf(c), (field, value, n) => `${this.groupName(field, value)} (${n})`);
    return html('section', { class: cls, 'data-key': key }, html('h4', {}, heading), this.list(key, choices, (ch) => this.take(ch, key)));
  }

  // A command as the player reads it: the server's label, with any id in it as a name.
  private labelOf(c: Legal): string {
    return this.names.scrub(c.label || c.id);
  }

  private groupName(field: number, value: string): string {
    if (field === 0) return value;
    if (field === 1) return this.names.seat(value) || humane(value);
    if (field === 2) return humane(value);
    if (field === 3 || field === 4) return this.names.place(value);
    return this.names.card(value);
  }

  private take(ch: Choice, key: string): void {
    if ('legal' in ch) { this.run(ch.legal); return; }
    this.opened.set(key, ch.group);
    this.render();
  }

  // One list offered at once: at most CHOICES_MAX buttons (a long one pages).
  private list(key: string, all: Choice[], pick: (ch: Choice) => void): HTMLElement {
    const open = this.opened.get(key);
    const ul = html('ul', { class: 'choices', 'data-key': key });
    if (open) {
      const inner = choicesOf(open, (c) => this.labelOf(c), (f, v, n) => `${this.groupName(f, v)} (${n})`);
      const shown = page(inner, this.pages.get(key + '>') ?? 0);
      for (const ch of shown.items) ul.append(html('li', {}, this.choiceButton(ch, () => ('legal' in ch ? this.run(ch.legal) : this.openInner(key, ch.group)))));
      ul.append(html('li', {}, this.plain('◂ back', () => { this.opened.delete(key); this.render(); })));
      if (shown.more) ul.append(html('li', {}, this.plain('more ▸', () => { this.pages.set(key + '>', (this.pages.get(key + '>') ?? 0) + 1); this.render(); })));
      return ul;
    }
    const shown = page(all, this.pages.get(key) ?? 0);
    for (const ch of shown.items) ul.append(html('li', {}, this.choiceButton(ch, () => pick(ch))));
    if (shown.more) ul.append(html('li', {}, this.plain('more ▸', () => { this.pages.set(key, (this.pages.get(key) ?? 0) + 1); this.render(); })));
    return ul;
  }

  private openInner(key: string, group: Legal[]): void {
    this.opened.set(key, group);
    this.pages.delete(key + '>');
    this.render();
  }

  private choiceButton(ch: Choice, f: () => void): HTMLElement {
    const b = 'legal' in ch ? this.commandButton(ch.label, ch.legal, 'cmd') : html('button', { type: 'button', class: 'group' }, ch.label);
    b.addEventListener('click', f);
    return b;
  }

  private button(label: string, c: Legal, cls: string): HTMLElement {
    const b = this.commandButton(label, c, cls);
    b.addEventListener('click', () => this.run(c));
    return b;
  }

  private commandButton(label: string, c: Legal, cls: string): HTMLElement {
    const b = html('button', { type: 'button', class: cls, 'data-id': c.id, 'data-verb': (c.verb ?? '').replace('COMMAND_VERB_', '').toLowerCase() }, label);
    if (c.vp) b.append(html('small', { class: 'vp' }, ` +${c.vp} VP`));
    return b;
  }

  private plain(label: string, f: () => void): HTMLElement {
    const b = html('button', { type: 'button', class: 'nav' }, label);
    b.addEventListener('click', f);
    return b;
  }
}

