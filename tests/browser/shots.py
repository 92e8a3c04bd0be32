"""Screenshots saved as PNG and checked not blank.  The check decodes the saved file in the
browser itself (an <img> drawn on a canvas), so it needs no imaging library; it does so in a
blank page of its own, since the gateway's Content-Security-Policy loads no data: image."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

COUNT_COLOURS = """async (b64) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + b64;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  const counts = new Map();
  for (let i = 0; i < d.length; i += 4 * 7) {
    const k = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  return { colours: counts.size, top: Math.max(...counts.values()), total: d.length / 28 };
}"""


def shoot(page: Any, folder: Path, name: str, full_page: bool = True) -> Path:
    """The page (whole, or only what the viewport shows) as ``folder/name.png``."""
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    blank = page.context.browser.new_page()
    try:
        stats = blank.evaluate(COUNT_COLOURS, base64.b64encode(path.read_bytes()).decode())
    finally:
        blank.close()
    assert stats["colours"] > 20, f"{path}: only {stats['colours']} colours"
    assert stats["top"] < 0.97 * stats["total"], f"{path}: one colour fills it"
    return path
