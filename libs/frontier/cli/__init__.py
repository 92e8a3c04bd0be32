"""The ``frontier`` command: the top layer, which nothing else of the project imports.

One module per command group (:mod:`~frontier.cli.play`, :mod:`~frontier.cli.bench`,
:mod:`~frontier.cli.stack`, :mod:`~frontier.cli.bot`, :mod:`~frontier.cli.tournament`), the
shared exit codes and argument types (:mod:`~frontier.cli.usage`), and the parser that
assembles them (:mod:`~frontier.cli.main`, the console script's entry point).  Command
modules import only ``usage`` and the layers below, never each other or ``main``, so the
package has no import cycle.
"""
