"""``frontier bench domain-calls``: both ways of calling are measured, over every call asked."""

from __future__ import annotations

from frontier.bench.domain_calls import measure


def test_the_benchmark_measures_unary_and_stream_calls_alternately() -> None:
    results = measure(calls=60, in_flight=3, reply_bytes=100)
    assert [r["mode"] for r in results] == ["unary", "stream", "unary", "stream"]
    for result in results:
        assert result["calls"] == 60 and result["in_flight"] == 3
        assert result["server_us_per_call"] >= 0 and result["client_us_per_call"] > 0
        assert result["baseline_ops_per_us"] > 0
        assert result["client_baseline_ops_per_call"] > 0
