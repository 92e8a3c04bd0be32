"""The five domain services: map, combat, crafting/contraband, scoring and turn-order.

Each is a stateless process (``python -m services.<name>``) that answers "decide this
command" and "list legal commands" for the command kinds its domain owns, from a projection
of the match it folds from the committed batches.  The rules themselves are the engine's;
this package is the adapter around them:

* :mod:`.map_service`, :mod:`.combat_service`, :mod:`.crafting_service`,
  :mod:`.turn_order_service`, :mod:`.scoring_service`: each service's RPC table and unary
  servicer (``python -m services.<name>`` runs its module); :mod:`.all_services` by domain.
* :mod:`.service`: what the five share around their tables, and how a table is served.
* :mod:`.core`: the engine call on a projection (shared by the five).
* :mod:`.call_service`: the same RPCs as messages on one open stream (DomainCallService),
  the way the orchestrator calls them.
* :mod:`.projection`: the per-match projections and how they are built and kept.
* :mod:`.scoreboard`: the scoring service's live scoreboard of every match.
* :mod:`.main`: the process entry point.
"""
