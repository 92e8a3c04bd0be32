"""The five domain services: map, combat, crafting/contraband, scoring and turn-order.

Each is a stateless process (``python -m services.<name>``) that answers "decide this
command" and "list legal commands" for the command kinds its domain owns, from a projection
of the match it folds from the committed batches.  The rules themselves are the engine's;
this package is the adapter around them:

* :mod:`.core`: the engine call on a projection (shared by the five).
* :mod:`.servicers`: each service's RPCs, as one table per domain.
* :mod:`.call_service`: the same RPCs as messages on one open stream (DomainCallService).
* :mod:`.projection`: the per-match projections and how they are built and kept.
* :mod:`.scoreboard`: the scoring service's live scoreboard of every match.
* :mod:`.main`: the process entry point.
"""
