"""The bot arena: outside bots register, dial in, are seated in matches against each other
and the server's built-in bots, and are ranked on a leaderboard (docs/arena.md).

One concept per module: :mod:`.scheduler` (who plays the next match, where; pure),
:mod:`.ratings` (the board and its openskill ratings; pure), :mod:`.registry` (bots and
their keys), :mod:`.store` (all of it on NATS KV), :mod:`.lobby` (who is present),
:mod:`.runner` (create, watch and record matches), :mod:`.service` (ArenaService),
:mod:`.main` (the process) and :mod:`.player` (an outside bot that enters the arena).
"""
