"""Benchmarks: the engine in-process, and the whole stack under concurrent matches.

* :mod:`~frontier.bench.engine`: engine throughput against a baseline timed in the same run.
* :mod:`~frontier.bench.stack`: latency and throughput of a local stack.
* :mod:`~frontier.bench.floor`: the least a command can cost on this machine (one gRPC call
  plus one JetStream publish-ack), the stack benchmark's yardstick.

Each reports a ratio against something measured in the same run, since machines are noisy.
Their command line is :mod:`frontier.cli.bench`.
"""
