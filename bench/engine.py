#!/usr/bin/env python3
"""Engine benchmark: ``python bench/engine.py [--matches N] [--lineup L] [--seed N] [--json]``.

A thin wrapper so benchmarks live in bench/ by convention while the code stays importable
(and tested) in :mod:`frontier.bench.engine`; it is the same as ``frontier bench engine``.
"""

from __future__ import annotations

import sys

from frontier.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["bench", "engine", *sys.argv[1:]]))
