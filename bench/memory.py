#!/usr/bin/env python3
"""Memory owners: ``python bench/memory.py [--matches N] [--max-commands K] [--json]``.

Plays N matches, then N more, through a local stack with tracemalloc on in every service,
and prints the bytes per match each process gained, by allocating line (see
:mod:`frontier.bench.memory`), with nats-server's own figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from frontier.bench import memory

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="matches per phase (40)")
    parser.add_argument("--lineup", default="A=marquise;B=marquise", help="lineup")
    parser.add_argument(
        "--max-commands", type=int, default=0, help="stop each match after K commands (0: play out)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    report = memory.run(args.matches, args.lineup, max_commands=args.max_commands)
    print(json.dumps(asdict(report)) if args.json else memory.text(report))
    sys.exit(0)
