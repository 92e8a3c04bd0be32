"""A minimal OpenTelemetry trace collector: OTLP/gRPC in, one JSON line per span out.

No collector binary can be installed from the package registries Frontier builds from, so
the compose stack runs this one, from the frontier image.  It serves
``opentelemetry.proto.collector.trace.v1.TraceService/Export`` (what the services send with
``FRONTIER_OTEL_EXPORTER=otlp``) and appends every span to ``FRONTIER_COLLECTOR_OUTPUT`` as
one JSON object per line (``-``, the default, prints them to stdout)::

    {"trace_id": "4bf9...", "span_id": "00f0...", "parent_span_id": "", "service":
     "frontier-orchestrator", "name": "/frontier.v1.MatchService/SubmitCommand",
     "kind": "SERVER", "start_unix_nano": ..., "duration_ms": 3.2, "status": "UNSET",
     "attributes": {"rpc.method": "SubmitCommand", ...}}

Spans whose name starts with one of ``FRONTIER_COLLECTOR_SKIP`` (comma-separated; default the
health checks, ``/grpc.health.v1.Health/``) are dropped.  A file that grows past
``FRONTIER_COLLECTOR_MAX_MB`` (default 100) is renamed to ``<file>.1`` (replacing the last
one) and a new one started, so a stack left running keeps at most twice that on disk.

Like every Frontier service it listens on ``FRONTIER_HOST:FRONTIER_PORT`` (default port 4317),
serves grpc.health.v1 and reflection, and drains on SIGTERM.  It keeps nothing in memory:
to search traces, read the file (``jq 'select(.trace_id == "...")' spans.jsonl``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2
from pydantic import Field

from frontier.runtime.server import configure_logging, serve
from frontier.runtime.settings import ServiceSettings

DEFAULT_PORT = 4317
SERVICE_NAME = trace_service_pb2.DESCRIPTOR.services_by_name["TraceService"].full_name

log = logging.getLogger("frontier.otel_collector")


class CollectorSettings(ServiceSettings):
    """FRONTIER_HOST, FRONTIER_PORT (default 4317) and the FRONTIER_COLLECTOR_* settings."""

    collector_output: str = Field(default="-", description="JSON-lines file, or - for stdout")
    collector_skip: str = Field(
        default="/grpc.health.v1.Health/", description="span name prefixes to drop, comma-separated"
    )
    collector_max_mb: float = Field(default=100, gt=0, description="size that rotates the file")

    def skip_prefixes(self) -> tuple[str, ...]:
        return tuple(p.strip() for p in self.collector_skip.split(",") if p.strip())

    def listen_port(self, service: str = "otel_collector") -> int:
        return self.port or DEFAULT_PORT


def any_value(value: common_pb2.AnyValue) -> Any:
    """An OTLP attribute value as plain JSON."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [any_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in value.kvlist_value.values}
    if kind == "bytes_value":
        return value.bytes_value.hex()
    if kind is None:
        return None
    return getattr(value, kind)


def attributes(values: Any) -> dict[str, Any]:
    return {kv.key: any_value(kv.value) for kv in values}


def span_record(service: str, scope: str, span: trace_pb2.Span) -> dict[str, Any]:
    """One span as the JSON object written on one line."""
    return {
        "trace_id": span.trace_id.hex(),
        "span_id": span.span_id.hex(),
        "parent_span_id": span.parent_span_id.hex(),
        "service": service,
        "scope": scope,
        "name": span.name,
        "kind": trace_pb2.Span.SpanKind.Name(span.kind).removeprefix("SPAN_KIND_"),
        "start_unix_nano": span.start_time_unix_nano,
        "end_unix_nano": span.end_time_unix_nano,
        "duration_ms": (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6,
        "status": trace_pb2.Status.StatusCode.Name(span.status.code).removeprefix("STATUS_CODE_"),
        "status_message": span.status.message,
        "attributes": attributes(span.attributes),
        "events": [
            {"name": e.name, "unix_nano": e.time_unix_nano, "attributes": attributes(e.attributes)}
            for e in span.events
        ],
    }


def span_records(
    request: trace_service_pb2.ExportTraceServiceRequest, skip: tuple[str, ...] = ()
) -> Iterator[dict[str, Any]]:
    """The request's spans, but those whose name starts with one of ``skip``."""
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        service = str(resource.get("service.name", ""))
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                if not span.name.startswith(skip):
                    yield span_record(service, scope_spans.scope.name, span)


class JsonLinesSink:
    """Appends JSON lines to a file (or writes them to stdout), flushed per export; a file
    past ``max_bytes`` becomes ``<file>.1`` and a new one is started."""

    def __init__(self, output: str, max_bytes: int = 100 * 2**20) -> None:
        self.output = output
        self.max_bytes = max_bytes
        self.spans = 0
        self._file: TextIO = sys.stdout if output == "-" else self._open()

    def _open(self) -> TextIO:
        Path(self.output).parent.mkdir(parents=True, exist_ok=True)
        return open(self.output, "a", encoding="utf-8")  # closed in write() or close()

    def write(self, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        self._file.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
        self._file.flush()
        self.spans += len(records)
        if self._file is not sys.stdout and self._file.tell() > self.max_bytes:
            self._file.close()
            os.replace(self.output, f"{self.output}.1")
            self._file = self._open()

    def close(self) -> None:
        if self._file is not sys.stdout:
            self._file.close()


class TraceReceiver(trace_service_pb2_grpc.TraceServiceServicer):
    """``TraceService/Export``: write the request's spans, answer with full success."""

    def __init__(self, sink: JsonLinesSink, skip: tuple[str, ...] = ()) -> None:
        self.sink = sink
        self.skip = skip

    async def Export(
        self,
        request: trace_service_pb2.ExportTraceServiceRequest,
        context: grpc.aio.ServicerContext[
            trace_service_pb2.ExportTraceServiceRequest,
            trace_service_pb2.ExportTraceServiceResponse,
        ],
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        records = list(span_records(request, self.skip))
        self.sink.write(records)
        log.debug("received %d spans", len(records))
        return trace_service_pb2.ExportTraceServiceResponse()


async def run(
    settings: CollectorSettings,
    ready: asyncio.Event | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    sink = JsonLinesSink(settings.collector_output, int(settings.collector_max_mb * 2**20))

    def register(server: grpc.aio.Server) -> None:
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(  # type: ignore[no-untyped-call]
            TraceReceiver(sink, settings.skip_prefixes()), server
        )

    async def on_stop() -> None:
        log.info("%d spans written to %s", sink.spans, settings.collector_output)
        sink.close()

    await serve("otel_collector", settings, register, [SERVICE_NAME], on_stop, ready, stop)


def main() -> None:
    settings = CollectorSettings()
    configure_logging(settings, "otel_collector")
    asyncio.run(run(settings))
