"""``frontier stack up`` starts the web gateway with the rest and prints its URL, which
serves the page and a healthy ``/healthz``; ``frontier stack play`` (``make run``) prints
where to watch its match, and with ``--keep-up`` keeps serving it after the end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from frontier.ops.stack import free_port

pytestmark = pytest.mark.integration


def frontier(*args: str) -> subprocess.Popen[str]:
    argv = [str(Path(sys.executable).parent / "frontier"), *args]
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, text=True, start_new_session=True, env=dict(os.environ)
    )


def read_until(proc: subprocess.Popen[str], text: str, lines: list[str]) -> str:
    """The first stdout line holding ``text`` (every line read goes into ``lines``)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    while True:
        line = proc.stdout.readline()
        assert line or proc.poll() is None, f"exited before {text!r}: {lines}"
        lines.append(line)
        if text in line:
            return line
        assert time.monotonic() < deadline, f"no {text!r} in {lines}"


def test_stack_play_prints_where_to_watch_and_keeps_up_for_the_replay(tmp_path: Path) -> None:
    proc = frontier(
        *("stack", "play", "--seed", "3", "--lineup", "A=marquise;B=marquise"),
        *("--workdir", str(tmp_path), "--keep-up"),
    )
    lines: list[str] = []
    try:
        watch = read_until(proc, "watch it in a browser: ", lines).split(": ", 1)[1].strip()
        replay = read_until(proc, "replay it in a browser: ", lines).split(": ", 1)[1].strip()
        assert replay == watch and "/match?match=" in watch, lines
        assert any("server events match the in-process engine" in line for line in lines)
        read_until(proc, "Ctrl-C to stop", lines)
        base, _, match_id = watch.partition("match?match=")
        with urllib.request.urlopen(f"{base}api/matches/{match_id}/view", timeout=5) as reply:
            assert json.loads(reply.read())["view"]["winner"] in ("A", "B", "draw")
        with urllib.request.urlopen(watch, timeout=5) as reply:
            assert b'<main id="app">' in reply.read()
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(60) == 0
    assert proc.stdout is not None and "stack stopped" in proc.stdout.read()


def test_stack_up_prints_the_browser_url_and_serves_it(tmp_path: Path) -> None:
    web_port, nats_port, base = free_port(), free_port(), free_port()
    argv = [
        *(str(Path(sys.executable).parent / "frontier"), "stack", "up"),
        *("--workdir", str(tmp_path), "--nats-port", str(nats_port)),
        *("--base-port", str(base), "--web-port", str(web_port)),
    ]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, text=True, start_new_session=True, env=dict(os.environ)
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 90
        while not any("all SERVING" in line for line in lines):
            line = proc.stdout.readline()
            assert line or proc.poll() is None, f"stack up exited: {lines}"
            lines.append(line)
            assert time.monotonic() < deadline, f"no 'all SERVING' in {lines}"
        url = f"http://127.0.0.1:{web_port}/"
        assert any(line.split()[:2] == ["web", url] for line in lines), lines
        with urllib.request.urlopen(url + "healthz", timeout=5) as reply:
            assert json.loads(reply.read()) == {"status": "ok"}
        with urllib.request.urlopen(url, timeout=5) as reply:
            assert b'<script type="module" src="/static/app.js">' in reply.read()
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(60) == 0
