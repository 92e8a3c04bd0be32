// The acting panel's keyboard shortcuts: which of its keys a key press is, or '' when the
// press belongs to the browser or to a field (typing in the standing answers' form, a modifier
// held for the browser's own shortcuts).

const KEYS = new Set(['e', 't', 'd', 'Escape', '-', '+']);

export function shortcutOf(e: KeyboardEvent): string {
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return '';
  const t = e.target as HTMLElement | null;
  if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return '';
  const key = e.key === '=' ? '+' : e.key.length === 1 ? e.key.toLowerCase() : e.key;
  return KEYS.has(key) ? key : '';
}
