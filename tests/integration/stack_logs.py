"""Reading a test stack's log files, for tests that check what was (and was not) logged."""

from __future__ import annotations

import time

from frontier.ops.stack import Stack


def stack_logs(stack: Stack) -> str:
    """Every log file of ``stack``, one after the other."""
    return "".join(p.read_text(errors="replace") for p in stack.logs.iterdir())


def wait_logged(stack: Stack, line: str, before: int = 0, timeout: float = 30.0) -> str:
    """All the stack's logs once ``line`` is in them more than ``before`` times.  A gateway
    writes its access line once the reply has gone out, so the line may land just after the
    client has the reply; ``timeout`` is a generous bound, never a measure."""
    deadline = time.monotonic() + timeout
    while (logged := stack_logs(stack)).count(line) <= before:
        assert time.monotonic() < deadline, f"{line!r} never logged"
        time.sleep(0.05)
    return logged
