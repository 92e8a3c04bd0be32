"""The OTLP/gRPC trace collector of the compose stack (services.otel_collector)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.resource.v1 import resource_pb2
from opentelemetry.proto.trace.v1 import trace_pb2
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from frontier.ops.healthcheck import check_grpc
from frontier.ops.stack import free_port
from services.otel_collector.collector import (
    CollectorSettings,
    JsonLinesSink,
    run,
    span_records,
)


def _kv(key: str, value: common_pb2.AnyValue) -> common_pb2.KeyValue:
    return common_pb2.KeyValue(key=key, value=value)


def _request() -> trace_service_pb2.ExportTraceServiceRequest:
    span = trace_pb2.Span(
        trace_id=bytes.fromhex("0af7651916cd43dd8448eb211c80319c"),
        span_id=bytes.fromhex("b7ad6b7169203331"),
        parent_span_id=bytes.fromhex("00f067aa0ba902b7"),
        name="/frontier.v1.MatchService/SubmitCommand",
        kind=trace_pb2.Span.SPAN_KIND_SERVER,
        start_time_unix_nano=1_000_000,
        end_time_unix_nano=3_500_000,
        status=trace_pb2.Status(code=trace_pb2.Status.STATUS_CODE_ERROR, message="boom"),
        attributes=[
            _kv("rpc.method", common_pb2.AnyValue(string_value="SubmitCommand")),
            _kv("rpc.grpc.status_code", common_pb2.AnyValue(int_value=14)),
            _kv("retry", common_pb2.AnyValue(bool_value=True)),
            _kv("ratio", common_pb2.AnyValue(double_value=0.5)),
            _kv("raw", common_pb2.AnyValue(bytes_value=b"\x01\xff")),
            _kv(
                "list",
                common_pb2.AnyValue(
                    array_value=common_pb2.ArrayValue(
                        values=[common_pb2.AnyValue(int_value=1), common_pb2.AnyValue()]
                    )
                ),
            ),
        ],
        events=[trace_pb2.Span.Event(name="retry", time_unix_nano=2_000_000)],
    )
    resource = resource_pb2.Resource(
        attributes=[_kv("service.name", common_pb2.AnyValue(string_value="frontier-map"))]
    )
    scope = trace_pb2.ScopeSpans(scope=common_pb2.InstrumentationScope(name="grpc"), spans=[span])
    return trace_service_pb2.ExportTraceServiceRequest(
        resource_spans=[trace_pb2.ResourceSpans(resource=resource, scope_spans=[scope])]
    )


def test_a_span_becomes_one_plain_json_object() -> None:
    (record,) = span_records(_request())
    assert record == {
        "trace_id": "0af7651916cd43dd8448eb211c80319c",
        "span_id": "b7ad6b7169203331",
        "parent_span_id": "00f067aa0ba902b7",
        "service": "frontier-map",
        "scope": "grpc",
        "name": "/frontier.v1.MatchService/SubmitCommand",
        "kind": "SERVER",
        "start_unix_nano": 1_000_000,
        "end_unix_nano": 3_500_000,
        "duration_ms": 2.5,
        "status": "ERROR",
        "status_message": "boom",
        "attributes": {
            "rpc.method": "SubmitCommand",
            "rpc.grpc.status_code": 14,
            "retry": True,
            "ratio": 0.5,
            "raw": "01ff",
            "list": [1, None],
        },
        "events": [{"name": "retry", "unix_nano": 2_000_000, "attributes": {}}],
    }
    json.dumps(record)  # plain JSON all the way down


def test_the_sink_appends_json_lines(tmp_path: Path) -> None:
    out = tmp_path / "spans" / "spans.jsonl"
    for _ in range(2):  # a second sink (a restarted collector) appends
        sink = JsonLinesSink(str(out))
        sink.write(list(span_records(_request())))
        sink.write([])
        sink.close()
    lines = out.read_text().splitlines()
    assert [json.loads(line)["span_id"] for line in lines] == ["b7ad6b7169203331"] * 2


def test_spans_can_be_skipped_by_name() -> None:
    request = _request()
    assert list(span_records(request, ("/grpc.health.v1.Health/", "/frontier.v1.Map")))
    assert not list(span_records(request, ("/frontier.v1.MatchService/",)))
    settings = CollectorSettings(collector_skip=" /a/ , /b/,")
    assert settings.skip_prefixes() == ("/a/", "/b/")
    assert CollectorSettings().skip_prefixes() == ("/grpc.health.v1.Health/",)


def test_a_full_file_is_rotated(tmp_path: Path) -> None:
    out = tmp_path / "spans.jsonl"
    sink = JsonLinesSink(str(out), max_bytes=1000)
    records = list(span_records(_request()))
    for _ in range(5):  # about 700 bytes each
        sink.write(records)
    sink.close()
    rotated = Path(f"{out}.1")
    assert len(rotated.read_text().splitlines()) == 2  # the last rotation holds two
    assert len(out.read_text().splitlines()) == 1
    assert sink.spans == 5


def test_the_sink_prints_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    sink = JsonLinesSink("-")
    sink.write([{"name": "x"}])
    sink.close()
    assert capsys.readouterr().out == '{"name":"x"}\n'


def test_the_port_defaults_to_otlp_grpc() -> None:
    assert CollectorSettings().listen_port() == 4317
    assert CollectorSettings(port=14317).listen_port() == 14317


@pytest.mark.integration
async def test_spans_from_the_sdk_exporter_reach_the_file(tmp_path: Path) -> None:
    """What FRONTIER_OTEL_EXPORTER=otlp sends, over loopback, ends up as JSON lines."""
    out = tmp_path / "spans.jsonl"
    port = free_port()
    settings = CollectorSettings(
        host="127.0.0.1", port=port, collector_output=str(out), metrics_port=0
    )

    def emit() -> None:
        provider = TracerProvider(resource=Resource.create({"service.name": "frontier-test"}))
        provider.add_span_processor(
            SimpleSpanProcessor(OTLPSpanExporter(f"127.0.0.1:{port}", insecure=True))
        )
        tracer = provider.get_tracer("test")
        with tracer.start_as_current_span("outer"), tracer.start_as_current_span("inner") as s:
            s.set_attribute("match.id", "m1")
        provider.shutdown()

    async def scenario() -> str | None:
        ready, stop = asyncio.Event(), asyncio.Event()
        server = asyncio.create_task(run(settings, ready, stop))
        await asyncio.wait_for(ready.wait(), 10)
        try:
            health = await asyncio.to_thread(check_grpc, f"127.0.0.1:{port}")
            await asyncio.to_thread(emit)  # the exporter is blocking: not on the server's loop
        finally:
            stop.set()
            await server
        return health

    assert await scenario() is None  # SERVING
    spans = {r["name"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert set(spans) == {"outer", "inner"}
    assert spans["inner"]["parent_span_id"] == spans["outer"]["span_id"]
    assert spans["inner"]["trace_id"] == spans["outer"]["trace_id"]
    assert spans["inner"]["service"] == "frontier-test"
    assert spans["inner"]["attributes"] == {"match.id": "m1"}
