#!/usr/bin/env python3
"""Domain-call CPU: ``python bench/domain_calls.py [--calls N] [--in-flight K] [--reply-bytes B]``.

The orchestrator's DomainClients calling a map server in another process (a handler that
does no engine work), unary RPCs and DomainCallService messages alternately, twice each:
CPU microseconds per call on the server and on the client (see
:mod:`frontier.bench.domain_calls`).
"""

from __future__ import annotations

import argparse
import json
import sys

from frontier.bench import domain_calls

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=4000, help="calls per run (4000)")
    parser.add_argument("--in-flight", type=int, default=20, help="calls at a time (20)")
    parser.add_argument("--reply-bytes", type=int, default=1500, help="reply payload (1500)")
    args = parser.parse_args()
    print(json.dumps(domain_calls.measure(args.calls, args.in_flight, args.reply_bytes), indent=2))
    sys.exit(0)
