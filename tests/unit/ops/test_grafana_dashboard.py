"""The Grafana dashboard (deploy/grafana/frontier.json) loads and reads only real metrics.

No Grafana runs where the tests run.  What would go wrong silently in one: a panel whose
query names a metric no Frontier process exports (an empty graph, no error), a missing key
that makes the import fail, two panels on one id.  So every expression's metric names are
compared with the registry the processes serve (``frontier.runtime.metrics``), and every
expression is parsed by promtool when it is installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .promql_names import defined_series, metric_names
from .test_prometheus_rules import promtool_or_skip, run_promtool

ROOT = Path(__file__).resolve().parents[3]
DASHBOARD = ROOT / "deploy" / "grafana" / "frontier.json"
REQUIRED = {"uid", "title", "schemaVersion", "panels", "time", "templating", "tags", "editable"}
# What the dashboard must show: a metric family (or a label value) each
TOPICS = {
    "commit latency": "frontier_jetstream_publish_seconds_bucket",
    "commands per second": "frontier_commands_total",
    "errors by reason": "frontier_rpc_errors_total",
    "strikes": "frontier_strikes_total",
    "takeovers": "frontier_takeovers_total",
    "leases": "frontier_matches_hosted",
    "lease takeovers": "frontier_lease_takeovers_total",
    "JetStream": "frontier_jetstream_publish_seconds_count",
    "NATS delivering late": "frontier_projection_catch_ups_total",
    "domain call latency": "frontier_rpc_duration_seconds_bucket",
    "CPU": "process_cpu_seconds_total",
    "memory": "process_resident_memory_bytes",
    "arena matches": "frontier_arena_matches_ended_total",
    "arena bots": "frontier_arena_bots_present",
}


def _dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return data


def _graphs() -> list[dict[str, Any]]:
    return [p for p in _dashboard()["panels"] if p["type"] != "row"]


def _expressions() -> list[str]:
    return [t["expr"] for p in _graphs() for t in p["targets"]]


def test_the_dashboard_has_what_grafana_needs_to_import_it() -> None:
    dashboard = _dashboard()
    assert dashboard.keys() >= REQUIRED
    assert isinstance(dashboard["schemaVersion"], int) and dashboard["schemaVersion"] >= 36
    assert dashboard["uid"] and len(dashboard["uid"]) <= 40  # Grafana's limit
    [variable] = dashboard["templating"]["list"]
    assert (variable["type"], variable["query"]) == ("datasource", "prometheus")
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        grid = panel["gridPos"]
        assert {"h", "w", "x", "y"} <= grid.keys() and grid["x"] + grid["w"] <= 24, panel["title"]
        assert panel["title"], panel["id"]


def test_every_graph_queries_prometheus_through_the_variable_with_a_description() -> None:
    for panel in _graphs():
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        assert panel["description"], panel["title"]
        refs = [t["refId"] for t in panel["targets"]]
        assert panel["targets"] and len(refs) == len(set(refs)), panel["title"]
        for target in panel["targets"]:
            assert target["expr"].strip(), panel["title"]


@pytest.mark.parametrize("expr", _expressions())
def test_every_expression_names_only_metrics_the_code_defines(expr: str) -> None:
    names = metric_names(expr)
    assert names, expr  # an expression that reads no metric shows nothing
    assert names <= defined_series(), (expr, names - defined_series())


def test_the_dashboard_shows_every_topic() -> None:
    read = set().union(*(metric_names(e) for e in _expressions()))
    missing = {topic for topic, name in TOPICS.items() if name not in read}
    assert not missing


def test_the_name_check_catches_an_unknown_metric() -> None:
    """The check above would fail on a misspelt or retired metric, and reads the names out
    of functions, matchers, groupings and durations correctly."""
    expr = (
        "histogram_quantile(0.99, sum by (instance, le) "
        '(rate(frontier_commit_seconds_bucket{le!="+Inf"}[$__rate_interval]))) > 0.5 '
        "unless on (instance) frontier_matches_hosted"
    )
    assert metric_names(expr) == {"frontier_commit_seconds_bucket", "frontier_matches_hosted"}
    assert "frontier_commit_seconds_bucket" not in defined_series()
    assert "frontier_matches_hosted" in defined_series()


def test_every_expression_parses(tmp_path: Path) -> None:
    """promtool parses each expression (as a recording rule; Grafana's ``$__rate_interval``
    read as 5m): a syntax error would show as an error on the panel only."""
    promtool = promtool_or_skip()
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"dashboard:expr{i}", "expr": e.replace("$__rate_interval", "5m")}
                    for i, e in enumerate(_expressions())
                ],
            }
        ]
    }
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(json.dumps(rules))
    run_promtool(promtool, "check", "rules", str(path))
