"""The metric names a PromQL expression reads, and the series names Frontier's code defines.

Shared by the checks of the Grafana dashboard and the Prometheus alert rules: a panel or an
alert that names a metric no process exports shows nothing, or never fires, without any error
anywhere, so both are checked against the registry the processes serve from.
"""

from __future__ import annotations

import re

from prometheus_client import REGISTRY

# importing them registers every Frontier metric: the services' and the arena's
import frontier.arena.metrics
import frontier.runtime.metrics  # noqa: F401

# What each kind of family exposes (prometheus-client's names; ``_created`` for all but gauges)
SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("", "_count", "_sum", "_created"),
    "gauge": ("",),
    "info": ("_info",),
}
# Words of PromQL that are not metric names
KEYWORDS = {
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "inf",
    "nan",
}


def defined_series() -> set[str]:
    """Every series name the processes' registry can expose: the Frontier metrics of
    ``frontier.runtime.metrics``, the arena's (``frontier.arena.metrics``) and
    prometheus-client's process and GC collectors."""
    names: set[str] = set()
    for family in REGISTRY.collect():
        names.update(family.name + suffix for suffix in SUFFIXES[family.type])
    return names


def metric_names(expr: str) -> set[str]:
    """The metric names an expression reads.  Removed first: string literals, label
    matchers ``{...}``, range and subquery durations ``[...]``, the label lists of ``by``,
    ``without``, ``on``, ``ignoring`` and ``group_*``, Grafana variables and numbers; what
    is left is function names (followed by ``(``), keywords and the metric names."""
    text = re.sub(r'"(?:\\.|[^"\\])*"', "", expr)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    grouping = r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)"
    text = re.sub(grouping, "", text)
    text = re.sub(r"\$\{?\w+\}?", "", text)
    text = re.sub(r"\b\d+(\.\d+)?(e[+-]?\d+)?\b", "", text)
    names = set()
    for found in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", text):
        word = found.group(0)
        following = text[found.end() :].lstrip()
        if following.startswith("(") or word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names
