"""A test kit for bot authors: play a bot against Frontier's built-in bots and judge it.

* :mod:`.checkbot` -- the one implementation: seat the bot, play, read back what the server
  saw (``frontier check-bot`` and ``play_with`` both call it);
* :mod:`.players` -- the bot under test, a command line or a Python bot;
* :mod:`.stacks` -- the local process stack or the compose stack to play on;
* :mod:`.report` -- the report, as a table or JSON;
* :mod:`.plugin` -- the pytest fixtures ``frontier_stack`` and ``play_with``.

Nothing is imported here: pytest loads the plugin in every run, and this package must cost
that run nothing.
"""
