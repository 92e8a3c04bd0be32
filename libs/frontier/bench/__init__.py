"""Benchmarks, run by ``frontier bench <name>`` (:mod:`frontier.cli.bench`).

The whole path:

* :mod:`~frontier.bench.engine`: engine throughput, random bots in-process on one core.
* :mod:`~frontier.bench.stack`: latency, throughput and CPU per command of a local stack.
* :mod:`~frontier.bench.floor`: the least a command can cost on this machine (one gRPC call
  plus one JetStream publish-ack), the stack benchmark's yardstick.

One part of it at a time:

* :mod:`~frontier.bench.wire`: folding a committed batch, the protobuf conversions, a clone.
* :mod:`~frontier.bench.publish`: one batch's JetStream publish-ack.
* :mod:`~frontier.bench.domain_calls`: the orchestrator -> domain call, unary and streamed.
* :mod:`~frontier.bench.memory`: the bytes a match costs, by process and allocating line.
* :mod:`~frontier.bench.search`: the search bot's think time, and its self-play.

Machines are noisy, so each reports a ratio against something measured in the same run: the
timings against the baseline workload (:mod:`~frontier.bench.baseline`) or the floor, the
memory per match as the growth between two phases of the same run.
"""
