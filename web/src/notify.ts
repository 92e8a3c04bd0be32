// The your-turn signal: the tab's title while the seat has a choice to make, and, when the
// player opts in, a short tone and a desktop notification while the tab is in the background.

import { html } from './svg';

const TITLE = document.title || 'Frontier';
const OPTS = 'frontier.notify';

export class TurnSignal {
  private waiting = false;
  private sound = false;
  private desktop = false;
  readonly root: HTMLElement;

  constructor() {
    const saved = (localStorage.getItem(OPTS) ?? '').split(',');
    this.sound = saved.includes('sound');
    this.desktop = saved.includes('desktop') && 'Notification' in window && Notification.permission === 'granted';
    const box = (id: string, label: string, on: boolean, set: (v: boolean) => void) => {
      const input = html('input', { type: 'checkbox', id });
      input.checked = on;
      input.addEventListener('change', () => set(input.checked));
      return html('label', {}, input, ` ${label}`);
    };
    this.root = html('div', { class: 'signal', id: 'signal' },
      box('signal-sound', 'sound on my turn', this.sound, (v) => { this.sound = v; this.save(); }),
      box('signal-desktop', 'notify me on my turn', this.desktop, (v) => {
        this.desktop = v;
        if (v && 'Notification' in window && Notification.permission !== 'granted') void Notification.requestPermission();
        this.save();
      }));
  }

  private save(): void {
    localStorage.setItem(OPTS, [this.sound ? 'sound' : '', this.desktop ? 'desktop' : ''].filter(Boolean).join(','));
  }

  // Called with each new legal list: signals once when the seat starts waiting to be answered.
  update(yourMove: boolean, what: string): void {
    document.title = yourMove ? `● Your turn — ${TITLE}` : TITLE;
    if (yourMove && !this.waiting) this.ring(what);
    this.waiting = yourMove;
  }

  private ring(what: string): void {
    if (this.sound) {
      try {
        const ctx = new AudioContext();
        const tone = ctx.createOscillator();
        const gain = ctx.createGain();
        gain.gain.value = 0.08;
        tone.frequency.value = 660;
        tone.connect(gain).connect(ctx.destination);
        tone.start();
        tone.stop(ctx.currentTime + 0.18);
      } catch { /* no audio device: the title still says it */ }
    }
    if (this.desktop && document.hidden && 'Notification' in window && Notification.permission === 'granted') {
      new Notification('Frontier: your turn', { body: what });
    }
  }
}
