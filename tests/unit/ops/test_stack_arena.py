"""The local stack's arena: off unless asked for; when asked for, it is configured to create
its matches on the stack's first orchestrator, under the stack's access mode, with the
caller's arena settings on top (no process is started here)."""

from __future__ import annotations

from pathlib import Path

from frontier.arena.main import DEFAULT_METRICS_PORT, DEFAULT_PORT, ArenaSettings
from frontier.ops.stack import Stack, StackConfig


def test_the_arena_runs_on_its_default_ports_unless_the_stack_chooses_others(
    tmp_path: Path,
) -> None:
    config = StackConfig(tmp_path)
    assert not config.arena
    assert config.address("arena") == f"127.0.0.1:{DEFAULT_PORT}"
    assert config.metrics_url("arena") == f"http://127.0.0.1:{DEFAULT_METRICS_PORT}/metrics"
    ephemeral = StackConfig.ephemeral(tmp_path, arena=True)
    assert ephemeral.ports["arena"] != DEFAULT_PORT
    assert ephemeral.metrics_url("arena").endswith(f":{ephemeral.metrics_ports['arena']}/metrics")


def test_the_arena_plays_on_the_first_orchestrator_with_the_settings_given(
    tmp_path: Path,
) -> None:
    config = StackConfig.ephemeral(
        tmp_path,
        orchestrators=2,
        arena=True,
        access="keys",
        extra_env={"FRONTIER_LOG_LEVEL": "DEBUG"},
        arena_env={"FRONTIER_ARENA_MAX_ROUNDS": "1", "FRONTIER_ARENA_HOST_KEY": "fk_x"},
    )
    env = Stack(config).service_env("arena")
    assert env["FRONTIER_ORCHESTRATOR_URL"] == config.address("orchestrator")
    assert env["FRONTIER_PORT"] == str(config.ports["arena"])
    assert env["FRONTIER_METRICS_PORT"] == str(config.metrics_ports["arena"])
    assert env["FRONTIER_NATS_URL"] == config.nats_url
    settings = ArenaSettings.model_validate(
        {
            k.removeprefix("FRONTIER_").lower(): v
            for k, v in env.items()
            if k.startswith("FRONTIER_")
        }
    )
    assert settings.access == "keys" and settings.log_level == "DEBUG"
    assert settings.arena_max_rounds == 1 and settings.arena_host_key == "fk_x"
    assert "FRONTIER_ARENA_MAX_ROUNDS" not in Stack(config).service_env("map")
