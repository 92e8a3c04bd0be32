"""The pytest plugin is installed with the package, costs other test runs nothing, and
check-bot's --compose says clearly when it cannot run."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

from frontier.cli.main import main
from frontier.testing.stacks import NoDocker, compose_stack

pytest_plugins = ("pytester",)


def test_the_plugin_is_a_pytest11_entry_point():
    (plugin,) = [e for e in entry_points(group="pytest11") if e.name == "frontier"]
    assert plugin.value == "frontier.testing.plugin"


def test_importing_the_plugin_loads_no_server_code():
    """Every pytest run of an environment with frontier loads the plugin: it must import
    nothing of the stack, gRPC or the engine until a test asks for a fixture."""
    probe = (
        "import sys, frontier.testing.plugin; "
        "heavy = sorted(m for m in sys.modules if m.startswith(('grpc', 'frontier.ops', "
        "'frontier.engine', 'frontier.v1', 'nats'))); print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_pytest_run_elsewhere_gets_the_fixtures(pytester: pytest.Pytester):
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess("--fixtures", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*frontier_stack*", "*play_with*"])


def test_compose_without_a_compose_file_is_a_clear_error(tmp_path):
    with pytest.raises(NoDocker, match=r"no docker-compose\.yml"), compose_stack(tmp_path):
        pass


def test_check_bot_compose_without_docker_exits_2_with_the_reason(tmp_path, monkeypatch, capsys):
    (tmp_path / "docker-compose.yml").write_text("services: {}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))  # no docker on it
    assert main(["check-bot", "--cmd", "mybot", "--compose"]) == 2
    assert "--compose needs Docker" in capsys.readouterr().err
