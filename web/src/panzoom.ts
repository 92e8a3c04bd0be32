// Pan and zoom for the board, on the SVG's viewBox and without a library: drag with a mouse
// or one finger, pinch with two, the wheel (with Ctrl, or once zoomed in, so that a page
// scroll over the whole board still scrolls the page), and the +, − and "whole board"
// buttons.  The view survives the board's re-renders: the state lives beside the element.

import { html } from './svg';

interface Box { x: number; y: number; w: number; h: number }
interface State { full: Box; box: Box; dragged: boolean }

const states = new WeakMap<SVGSVGElement, State>();
const MAX_ZOOM = 8;
/** How far (px) a press may wander and still be a tap, not a drag (here and in drag.ts). */
export const TAP_SLOP_PX = 8;

function apply(root: SVGSVGElement, s: State): void {
  root.setAttribute('viewBox', `${s.box.x} ${s.box.y} ${s.box.w} ${s.box.h}`);
}

function clamp(s: State): void {
  const { full, box } = s;
  box.w = Math.min(full.w, Math.max(full.w / MAX_ZOOM, box.w));
  box.h = (box.w * full.h) / full.w;
  box.x = Math.min(full.x + full.w - box.w, Math.max(full.x, box.x));
  box.y = Math.min(full.y + full.h - box.h, Math.max(full.y, box.y));
}

/** Zooms by `factor` (> 1: closer) around a point given as fractions of the drawn board. */
export function zoom(root: SVGSVGElement, factor: number, fx = 0.5, fy = 0.5): void {
  const s = states.get(root);
  if (!s) return;
  const px = s.box.x + fx * s.box.w;
  const py = s.box.y + fy * s.box.h;
  s.box.w /= factor;
  s.box.h /= factor;
  s.box.x = px - fx * s.box.w;
  s.box.y = py - fy * s.box.h;
  clamp(s);
  apply(root, s);
}

export function resetView(root: SVGSVGElement): void {
  const s = states.get(root);
  if (!s) return;
  s.box = { ...s.full };
  apply(root, s);
}

/** Sets the whole board's box and, once per element, the buttons and pointer handling. */
export function panZoom(root: SVGSVGElement, full: Box): void {
  const known = states.get(root);
  if (known) { known.full = full; clamp(known); apply(root, known); return; }
  const s: State = { full, box: { ...full }, dragged: false };
  states.set(root, s);
  apply(root, s);
  const frame = html('div', { class: 'board-frame' });
  const button = (label: string, name: string, f: () => void): HTMLElement => {
    const b = html('button', { type: 'button', class: 'zoom-button', 'aria-label': name, title: name }, label);
    b.addEventListener('click', f);
    return b;
  };
  const controls = html('div', { class: 'zoom-controls', role: 'group', 'aria-label': 'zoom the board' },
    button('+', 'zoom in', () => zoom(root, 1.5)), button('−', 'zoom out', () => zoom(root, 1 / 1.5)),
    button('⤢', 'show the whole board', () => resetView(root)));
  root.replaceWith(frame);
  frame.append(root, controls);
  listen(root, s);
}

function listen(root: SVGSVGElement, s: State): void {
  const pointers = new Map<number, { x: number; y: number }>();
  let moved = 0;
  const spread = (): number => {
    const [a, b] = [...pointers.values()];
    return Math.hypot(a.x - b.x, a.y - b.y);
  };
  root.addEventListener('pointerdown', (e) => {
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 1) moved = 0;
  });
  root.addEventListener('pointermove', (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    const rect = root.getBoundingClientRect();
    if (pointers.size === 2) {
      const before = spread();
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      const [a, b] = [...pointers.values()];
      if (before > 0) zoom(root, spread() / before, ((a.x + b.x) / 2 - rect.left) / rect.width, ((a.y + b.y) / 2 - rect.top) / rect.height);
      moved += 100;
      return;
    }
    const dx = e.clientX - last.x;
    const dy = e.clientY - last.y;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    moved += Math.abs(dx) + Math.abs(dy);
    // a click, nothing to pan, or a move dragged across the board (drag.ts)
    if (moved < TAP_SLOP_PX || s.box.w >= s.full.w || root.dataset.moving) return;
    if (!root.hasPointerCapture(e.pointerId)) root.setPointerCapture(e.pointerId);
    s.box.x -= (dx * s.box.w) / rect.width;
    s.box.y -= (dy * s.box.h) / rect.height;
    clamp(s);
    apply(root, s);
  });
  const up = (e: PointerEvent): void => {
    pointers.delete(e.pointerId);
    s.dragged = moved >= TAP_SLOP_PX;
  };
  root.addEventListener('pointerup', up);
  root.addEventListener('pointercancel', up);
  // a drag that ends on a clearing is no click on it
  root.addEventListener('click', (e) => {
    if (s.dragged) { e.stopPropagation(); e.preventDefault(); s.dragged = false; }
  }, true);
  root.addEventListener('wheel', (e) => {
    if (!e.ctrlKey && !e.metaKey && s.box.w >= s.full.w) return;
    e.preventDefault();
    const rect = root.getBoundingClientRect();
    zoom(root, Math.exp(-e.deltaY / 300), (e.clientX - rect.left) / rect.width, (e.clientY - rect.top) / rect.height);
  }, { passive: false });
}
