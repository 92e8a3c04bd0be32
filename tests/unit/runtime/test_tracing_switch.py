"""Tracing is all or nothing per process: no exporter means no provider and no interceptors.

Each case runs in a fresh interpreter, because OpenTelemetry's tracer provider can be set
only once per process (the integration tracing test sets one in the test process).
"""

from __future__ import annotations

import subprocess
import sys

OFF = """
import contextlib
from frontier.runtime.settings import ServiceSettings
from frontier.runtime.telemetry import (
    grpc_client_interceptors, grpc_server_interceptors, inject_headers, setup_tracing, span,
    tracing_on,
)
assert setup_tracing("x", ServiceSettings()) is None
assert not tracing_on()
assert grpc_server_interceptors() == [] and grpc_client_interceptors() == []
assert inject_headers({"a": "1"}) == {"a": "1"}
assert isinstance(span("s"), contextlib.nullcontext)  # not even a no-op span
"""

ON = """
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from frontier.runtime.settings import ServiceSettings
from frontier.runtime.telemetry import (
    grpc_client_interceptors, grpc_server_interceptors, inject_headers, setup_tracing, span,
    tracer, tracing_on,
)
assert setup_tracing("x", ServiceSettings(), SimpleSpanProcessor(InMemorySpanExporter()))
assert tracing_on()
assert len(grpc_server_interceptors()) == 1 and grpc_client_interceptors()
with tracer().start_as_current_span("s"):
    assert "traceparent" in inject_headers({})
with span("t") as inner:
    assert inner.is_recording() and "traceparent" in inject_headers({})
"""


def _run(code: str) -> None:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_no_exporter_means_no_tracing_machinery() -> None:
    _run(OFF)


def test_an_exporter_turns_interceptors_and_propagation_on() -> None:
    _run(ON)
