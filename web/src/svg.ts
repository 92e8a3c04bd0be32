// Tiny helpers to build SVG and HTML without a framework.

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs: Record<string, string | number> = {}, text?: string): SVGElement {
  const el = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

export function html<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  // A style goes through the CSSOM: the page's Content-Security-Policy refuses style attributes.
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'style') el.style.cssText = v; else el.setAttribute(k, v);
  }
  for (const c of children) el.append(c);
  return el;
}
