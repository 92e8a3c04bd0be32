"""Playing matches: in-process with bots, through a running server, replays and tournaments.

* :mod:`~frontier.play.match_runner`: a whole match in-process, the engine in a loop.
* :mod:`~frontier.play.replay`: replay files, and re-running them to check a match.
* :mod:`~frontier.play.tournament`: many in-process matches, bots against bots, with
  :mod:`~frontier.play.match_stats` (what one match's events say: mechanics, score by
  round), :mod:`~frontier.play.tournament_stats` (those added up per bot),
  :mod:`~frontier.play.tournament_report` (the text) and
  :mod:`~frontier.play.tournament_plot` (the charts).
* :mod:`~frontier.play.remote_match`: one match through ``MatchService``, checked against
  the in-process engine.
* :mod:`~frontier.play.load`: many concurrent matches through ``MatchService`` (the load of
  the stack benchmark, the concurrency tests and the compose stack's bots).

Everything here is a client of the engine or of the public gRPC API; nothing here is part
of the server.
"""
