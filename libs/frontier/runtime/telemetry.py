"""OpenTelemetry: one command is one trace across orchestrator -> domain service -> NATS.

gRPC spans and context propagation come from opentelemetry-instrumentation-grpc (server and
client interceptors); NATS messages carry the W3C trace context in their headers.  The
exporter is a setting: console, OTLP/gRPC to a collector, or none.

With no exporter, tracing is off altogether: no SDK provider is installed and the services
add no interceptors: the interceptors and span objects cost a noticeable share of each
process's CPU per call even when every span is thrown away, and a trace nobody exports
helps nobody.  A deployment traces every service or none
(the compose stack and the settings docs say so), so nothing is lost by not propagating
context through a process that exports nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from opentelemetry import context, propagate, trace
from opentelemetry.instrumentation.grpc import aio_client_interceptors, aio_server_interceptor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
)

from .settings import ServiceSettings
from .tls import channel_credentials

TRACER_NAME = "frontier"


def setup_tracing(
    service: str, settings: ServiceSettings, extra: SpanProcessor | None = None
) -> TracerProvider | None:
    """Install a tracer provider for this process when something will receive its spans
    (an exporter from the settings, or the processor a test passes); otherwise leave
    OpenTelemetry's no-op provider in place and return None."""
    if settings.otel_exporter == "none" and extra is None:
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": f"frontier-{service}"}))
    if settings.otel_exporter == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    elif settings.otel_exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        endpoint = settings.otel_endpoint or "localhost:4317"
        creds = channel_credentials(settings)  # the collector serves TLS like every service
        exporter = OTLPSpanExporter(endpoint, insecure=creds is None, credentials=creds)
        provider.add_span_processor(BatchSpanProcessor(exporter))
    if extra is not None:
        provider.add_span_processor(extra)
    trace.set_tracer_provider(provider)
    return provider


def tracer() -> trace.Tracer:
    return trace.get_tracer(TRACER_NAME)


def span(name: str) -> contextlib.AbstractContextManager[object]:
    """A span named ``name`` around a block, or nothing at all when tracing is off: even a
    no-op span goes through the proxy tracer's context managers, a visible share of the
    orchestrator's CPU for the one span on the commit path."""
    if not tracing_on():
        return contextlib.nullcontext()
    return tracer().start_as_current_span(name)


def tracing_on() -> bool:
    """Whether :func:`setup_tracing` installed a provider in this process."""
    return isinstance(trace.get_tracer_provider(), TracerProvider)


def grpc_server_interceptors() -> list[Any]:
    if not tracing_on():
        return []
    return [aio_server_interceptor()]  # type: ignore[no-untyped-call]


def grpc_client_interceptors() -> list[Any]:
    if not tracing_on():
        return []
    return list(aio_client_interceptors())  # type: ignore[no-untyped-call]


def inject_headers(headers: dict[str, str]) -> dict[str, str]:
    """Add the current trace context to NATS message headers (when tracing is on)."""
    if tracing_on():
        propagate.inject(headers)
    return headers


def extract_context(headers: Mapping[str, str] | None) -> context.Context:
    return propagate.extract(dict(headers or {}))
