"""Generated protobuf and gRPC modules for the ``frontier.v1`` proto package.

Everything else in this directory is written by ``make proto`` from ``proto/frontier/v1/*.proto``
(``*_pb2.py`` / ``*_pb2_grpc.py`` plus their mypy-protobuf ``.pyi`` stubs) and is git-ignored:
the .proto files are the source of truth, and regenerating keeps the code in step with the
installed protobuf runtime.  Only this file is committed, so ``frontier.v1`` is a regular
package (importable, found by packaging and mypy) even before generation.  Convert to and from
engine types with :mod:`frontier.wire`, never by hand.
"""
