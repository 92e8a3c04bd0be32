// Moves by dragging: press on a clearing (or forest) a move may start from, release on where
// it goes.  One gesture for what takes two taps (the source, then the destination); a press
// that never leaves its clearing stays a tap.  While a move is dragged the board does not
// pan (panzoom.ts reads `data-moving`), and a line follows the pointer.

import { TAP_SLOP_PX } from './panzoom';
import { svg } from './svg';

export type Drop = (from: string, to: string) => void;

const drops = new WeakMap<SVGSVGElement, Drop>();
const listening = new WeakSet<SVGSVGElement>();

/** The place (clearing or forest id) drawn under a point of the screen, if any. */
function placeAt(x: number, y: number): string {
  const g = document.elementFromPoint(x, y)?.closest('[data-clearing], [data-forest]');
  return g?.getAttribute('data-clearing') ?? g?.getAttribute('data-forest') ?? '';
}

/** A point of the screen in the board's own coordinates (its viewBox, zoomed or not). */
function inBoard(root: SVGSVGElement, x: number, y: number): { x: number; y: number } {
  const m = root.getScreenCTM()?.inverse();
  const p = new DOMPoint(x, y);
  const q = m ? p.matrixTransform(m) : p;
  return { x: q.x, y: q.y };
}

/** Lets the board's `.movable` places be dragged to a destination; `drop` says what a drag
 *  means (none: the board is only looked at).  Called at each drawing; listens once. */
export function dragMoves(root: SVGSVGElement, drop: Drop | undefined): void {
  if (drop) drops.set(root, drop); else drops.delete(root);
  if (listening.has(root)) return;
  listening.add(root);
  let from = '';
  let start = { x: 0, y: 0 };
  let line: SVGLineElement | null = null;
  const stop = (): void => {
    from = '';
    line?.remove();
    line = null;
    delete root.dataset.moving;
  };
  root.addEventListener('pointerdown', (e) => {
    const g = (e.target as Element).closest('.movable');
    if (!g || !e.isPrimary || !drops.has(root)) return;
    from = g.getAttribute('data-clearing') ?? g.getAttribute('data-forest') ?? '';
    start = { x: e.clientX, y: e.clientY };
    root.dataset.moving = from;
  });
  root.addEventListener('pointermove', (e) => {
    if (!from || !e.isPrimary) return;
    if (!line && Math.hypot(e.clientX - start.x, e.clientY - start.y) < TAP_SLOP_PX) return;
    const at = inBoard(root, e.clientX, e.clientY);
    if (!line) {
      const s = inBoard(root, start.x, start.y);
      line = svg('line', { x1: s.x, y1: s.y, x2: at.x, y2: at.y, class: 'drag-line' }) as SVGLineElement;
      root.append(line);
    }
    line.setAttribute('x2', String(at.x));
    line.setAttribute('y2', String(at.y));
  });
  root.addEventListener('pointerup', (e) => {
    if (!from || !e.isPrimary) return;
    const source = from;
    const dragged = line !== null;
    stop();
    const to = placeAt(e.clientX, e.clientY);
    if (dragged && to && to !== source) drops.get(root)?.(source, to);
  });
  root.addEventListener('pointercancel', stop);
}
