"""Operations: running the server, and checking that it runs.

* :mod:`~frontier.ops.stack`: nats-server and every service as local processes (``frontier
  stack``, ``make run``, the stack benchmark and the integration tests).
* :mod:`~frontier.ops.healthcheck`: the containers' health checks
  (``python -m frontier.ops.healthcheck``).
* :mod:`~frontier.ops.compose_bot`: the compose stack's bots
  (``python -m frontier.ops.compose_bot``).
"""
