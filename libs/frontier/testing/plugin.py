"""The pytest plugin of ``frontier.testing``, registered as the ``frontier`` entry point.

Fixtures:

* ``frontier_stack`` (session): NATS, the services and the orchestrator on free loopback
  ports, started on first use and stopped at the end of the session; a
  :class:`~frontier.testing.stacks.StackHandle` (``address``, ``nats_url``, ``play_with``).
* ``play_with``: ``frontier_stack.play_with`` -- ``play_with(bot, seat, opponents)`` plays
  one match and returns its :class:`~frontier.testing.report.MatchReport`.

Every pytest run of an environment with ``frontier`` installed loads this module, so it
imports nothing but pytest at the top and starts nothing until a test asks for a fixture.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from frontier.testing.report import MatchReport
    from frontier.testing.stacks import StackHandle


@pytest.fixture(scope="session")
def frontier_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackHandle]:
    """A local Frontier stack for the whole test session."""
    from frontier.testing.stacks import local_stack

    with local_stack(tmp_path_factory.mktemp("frontier-stack")) as handle:
        yield handle


@pytest.fixture
def play_with(frontier_stack: StackHandle) -> Callable[..., MatchReport]:
    """Play one match with a bot on ``frontier_stack``: ``play_with(bot, seat, opponents)``."""
    play: Callable[..., Any] = frontier_stack.play_with
    return play
