#!/usr/bin/env python3
"""Search bot measurements: ``python bench/search_bot.py timing|selfplay [--matches N] ...``.

A thin wrapper, like ``bench/engine.py``: the code is :mod:`frontier.bench.search`.
``timing`` plays the search bot against greedy (each seed twice, teams swapped) and reports
its think time per decision; ``selfplay`` puts it on every seat and reports each faction's
average VP and how many matches scored contraband at home.
"""

from __future__ import annotations

import sys

from frontier.bench.search import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
