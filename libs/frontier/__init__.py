"""Frontier: a match server for a six-seat, two-team variant of Root.

Subpackages, from the bottom layer up (``make lint`` checks the order with import-linter,
see ``[tool.importlinter]`` in pyproject.toml): ``engine`` (the pure rules core), ``v1``
(code generated from proto/frontier/v1), ``wire`` (conversion between the two), ``runtime``
(service plumbing) and ``bots``, ``orchestrator`` (the turn orchestrator), ``play`` (matches
in-process, through a server, replays, tournaments), ``ops`` (the local stack, health
checks, the compose bot), ``bench`` (benchmarks) and ``cli`` (the ``frontier`` command).
"""
