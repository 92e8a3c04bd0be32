"""The Prometheus alert rules (deploy/prometheus/alerts.yml): valid, firing, documented.

``promtool check rules`` parses them as Prometheus would, and ``promtool test rules`` runs
alerts.test.yml, where each alert fires on synthetic series with its labels and annotations
exactly, and stays quiet before its ``for`` and for healthy instances.  promtool comes with
Debian's ``prometheus`` package: without it those tests skip and say so, and with
``FRONTIER_REQUIRE_PROMTOOL=1`` (set by .ci/run, which installs it) they fail instead.

Without promtool, the rest still runs: every metric an alert reads is one the code defines
(or, for the disk, one the kubelet or node_exporter exports), and every alert's runbook is a
section of docs/operations.md.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from .promql_names import defined_series, metric_names

ROOT = Path(__file__).resolve().parents[3]
RULES = ROOT / "deploy" / "prometheus" / "alerts.yml"
RULE_TESTS = ROOT / "deploy" / "prometheus" / "alerts.test.yml"
OPERATIONS = ROOT / "docs" / "operations.md"
# What the alerts must cover (the alert names)
COVERED = {
    "FrontierWritePathDown",
    "FrontierEventStoreUnwritable",
    "FrontierCommitLatencyHigh",
    "FrontierStrikesHigh",
    "FrontierLeaseTakeovers",
    "FrontierNatsVolumeFilling",
    "FrontierNatsHostDiskFilling",
}
# Metrics of other exporters, allowed in the disk rules only: Frontier does not scrape
# nats-server, so the JetStream store's free space is read from the file system under it.
EXTERNAL = {
    "kubelet_volume_stats_available_bytes": "the kubelet (Kubernetes volumes)",
    "kubelet_volume_stats_capacity_bytes": "the kubelet (Kubernetes volumes)",
    "node_filesystem_avail_bytes": "node_exporter (a Docker host)",
    "node_filesystem_size_bytes": "node_exporter (a Docker host)",
}


def promtool_or_skip() -> str:
    """promtool's path; skips without it, or fails under FRONTIER_REQUIRE_PROMTOOL=1."""
    found = shutil.which("promtool")
    if found is not None:
        return found
    reason = "promtool is not installed (Debian: apt-get install prometheus)"
    if os.environ.get("FRONTIER_REQUIRE_PROMTOOL") == "1":
        pytest.fail(f"FRONTIER_REQUIRE_PROMTOOL=1 but {reason}")
    pytest.skip(reason)


def run_promtool(promtool: str, *args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [promtool, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _rules() -> list[tuple[str, dict[str, Any]]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [(group["name"], rule) for group in groups for rule in group["rules"]]


def _alerts() -> dict[str, dict[str, Any]]:
    return {rule["alert"]: rule for _, rule in _rules() if "alert" in rule}


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of the headings: lower case, punctuation dropped, spaces as -."""
    headings = re.findall(r"^#{1,6} (.+)$", markdown, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_promtool_finds_the_rules_valid() -> None:
    promtool = promtool_or_skip()
    out = run_promtool(promtool, "check", "rules", str(RULES))
    assert f"SUCCESS: {len(_rules())} rules found" in out


def test_every_alert_fires_on_its_synthetic_series() -> None:
    promtool = promtool_or_skip()
    out = run_promtool(promtool, "test", "rules", RULE_TESTS.name, cwd=RULE_TESTS.parent)
    assert "SUCCESS" in out


def test_the_rule_tests_cover_every_alert_firing_and_quiet() -> None:
    """Each alert has a case where it fires and one where it must not."""
    tests = yaml.safe_load(RULE_TESTS.read_text())
    assert tests["rule_files"] == [RULES.name]
    cases = [c for t in tests["tests"] for c in t["alert_rule_test"]]
    for name in _alerts():
        mine = [c for c in cases if c["alertname"] == name]
        assert any(c["exp_alerts"] for c in mine), f"{name} is never shown to fire"
        assert any(not c["exp_alerts"] for c in mine), f"{name} is never shown quiet"


def test_the_alerts_cover_the_write_path_latency_strikes_leases_and_disk() -> None:
    assert set(_alerts()) == COVERED


@pytest.mark.parametrize("name", sorted(COVERED))
def test_every_alert_has_a_severity_a_summary_a_description_and_a_runbook(name: str) -> None:
    alert = _alerts()[name]
    assert alert["labels"]["severity"] in {"critical", "warning"}
    annotations = alert["annotations"]
    assert set(annotations) == {"summary", "description", "runbook"}
    assert annotations["summary"].strip() and annotations["description"].strip()
    document, _, anchor = annotations["runbook"].partition("#")
    assert document == "docs/operations.md" and anchor == name.lower()
    assert anchor in _anchors(OPERATIONS.read_text()), f"no section {name} in {document}"


def test_the_runbook_names_every_alert_and_no_other() -> None:
    """docs/operations.md has one section per alert, and none for an alert that is gone."""
    text = OPERATIONS.read_text()
    alerts_part = text.split("\n## Alerts", 1)[1].split("\n## ", 1)[0]
    sections = set(re.findall(r"^### (Frontier\w+)$", alerts_part, re.M))
    assert sections == COVERED


@pytest.mark.parametrize(
    ("group", "rule"), [pytest.param(g, r, id=r["alert"]) for g, r in _rules()]
)
def test_every_rule_reads_only_metrics_that_exist(group: str, rule: dict[str, Any]) -> None:
    names = metric_names(rule["expr"])
    assert names
    allowed = defined_series() | (set(EXTERNAL) if group == "frontier-disk" else set())
    assert names <= allowed, names - allowed
