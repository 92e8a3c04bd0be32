"""``frontier arena campaign``'s options: which built-in bots stand on the board."""

from __future__ import annotations

import argparse

import pytest

from frontier.arena.main import ArenaSettings
from frontier.bench.campaign import CampaignConfig, Churn, arena_env
from frontier.cli.arena import builtin_names
from frontier.cli.main import main


def test_the_builtins_are_registered_bots_each_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert builtin_names("random, greedy,search-halving") == ("random", "greedy", "search-halving")
    for bad in ("random,nobody", " , ", "greedy,greedy"):
        with pytest.raises(argparse.ArgumentTypeError, match="out of greedy, greedy-view"):
            builtin_names(bad)
    assert main(["arena", "campaign", "--builtins", "random,nobody"]) == 2
    assert "give distinct built-in bots" in capsys.readouterr().err


def test_the_builtins_reach_the_arena_of_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    default = arena_env(CampaignConfig())
    assert default["FRONTIER_ARENA_BUILTINS"] == "random,greedy,search"
    env = arena_env(CampaignConfig(builtins=("random", "greedy", "search-halving")))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert ArenaSettings().arena_builtins == "random,greedy,search-halving"


def test_the_run_goes_on_until_every_bot_joined_and_left_twice_and_one_was_killed() -> None:
    names = ("node-bot", "python-player")
    churn = Churn(joins=dict.fromkeys(names, 2), leaves=dict.fromkeys(names, 2))
    assert not churn.shown(names)  # no kill yet
    churn.killed_bot = "python-player"
    assert churn.shown(names)
    churn.joins["node-bot"] = 1  # the second join not seen yet
    assert not churn.shown(names)
    churn.joins["node-bot"], churn.leaves["python-player"] = 3, 1
    assert not churn.shown(names)
    assert not Churn(killed_bot="node-bot").shown(names)
