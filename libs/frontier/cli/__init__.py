"""The ``frontier`` command: the top layer, which nothing else of the project imports.

One module per command group (:mod:`~frontier.cli.play`, :mod:`~frontier.cli.bench`,
:mod:`~frontier.cli.stack`, :mod:`~frontier.cli.bot`, :mod:`~frontier.cli.tournament`), what
they share (:mod:`~frontier.cli.usage`: exit codes, usage errors, argument types;
:mod:`~frontier.cli.progress`: the progress bar), and the parser that assembles them
(:mod:`~frontier.cli.main`, the console script's entry point).  Command modules import only
what they share and the layers below, never each other or ``main``, so the package has no
import cycle (an import-linter contract in pyproject.toml checks it).
"""
