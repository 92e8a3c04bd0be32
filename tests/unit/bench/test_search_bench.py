"""The search bot's measurements (``frontier bench search``): one cheap match of each mode."""

from __future__ import annotations

import json

import pytest

from frontier.bench import search as search_bench
from frontier.bots.halving import HalvingSearchBot
from frontier.cli.main import main
from frontier.engine import Command, CommandKind, Event, EventKind, Seat
from frontier.engine.cards import catalog

MIRROR = "A=marquise;B=marquise"


def test_timing_and_selfplay_report_what_they_measured(capsys: pytest.CaptureFixture[str]) -> None:
    versus = search_bench.play_one(MIRROR, 5, 2, "random", "A")
    selfplay = search_bench.play_one(MIRROR, 5, 2, "random", "both")
    assert versus["winner"] in ("A", "B", "draw")
    assert versus["decision_s"] and all(t >= 0 for t in versus["decision_s"])
    assert sum(selfplay["faction_vp"].values()) == sum(selfplay["scores"].values())
    summary = search_bench.summarize([versus, selfplay], 2)
    assert summary["matches"] == 2 and summary["versus_games"] == 1
    assert summary["search_wins"] == (1 if versus["winner"] == "A" else 0)
    assert set(summary["faction_vp_mean"]) == {"marquise (A1)", "marquise (B1)"}
    assert summary["decision_ms"]["p50"] <= summary["decision_ms"]["max"]
    assert summary["crafts"] == {
        k: versus["crafts"][k] + selfplay["crafts"][k] for k in search_bench.CRAFT_KEYS
    }
    argv = ["bench", "search", "selfplay", "--lineup", MIRROR, "--matches", "1"]
    assert main([*argv, "--iterations", "1"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["matches"] == 1 and printed["iterations"] == 1
    assert printed["baseline_ops_per_us"] > 0
    assert set(printed["decision_baseline_kops"]) == set(printed["decision_ms"])


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "search", "timing", "--matches", "0"]) == 2
    assert main(["bench", "search", "nonsense"]) == 2
    assert main(["bench", "search", "timing", "--bot", "greedy"]) == 2
    with pytest.raises(ValueError, match="mode"):
        search_bench.run("nonsense")
    with pytest.raises(ValueError, match="bot must be one of search, search-halving"):
        search_bench.run("timing", bot="greedy")


def test_the_halving_search_is_measured_with_its_playout_budget() -> None:
    bot = search_bench.SEARCHERS["search-halving"](1, 48)
    assert isinstance(bot, HalvingSearchBot) and bot.playouts == 48


def test_craft_tally_tells_home_crafts_from_contraband_and_its_fate() -> None:
    coins = next(c for c in catalog().values() if c.item is not None and c.item.value == "coins")
    tally = dict.fromkeys(search_bench.CRAFT_KEYS, 0)
    search_bench.craft_tally(
        [
            Event(EventKind.CARD_CRAFTED, seat="A1", cards=(coins.id,), piece="coins"),
            Event(EventKind.CARD_CRAFTED, seat="B1", cards=(coins.id,), piece="coins", to="x"),
            Event(EventKind.CONTRABAND_VALIDATED, seat="B1", piece="coins"),
            Event(EventKind.CONTRABAND_SEIZED, seat="A1", piece="bag"),
            Event(EventKind.CARD_CRAFTED, seat="A1", cards=(coins.id,)),  # no item: not counted
        ],
        tally,
    )
    assert tally == {
        "home_crafts": 1,
        "home_craft_vp": coins.vp,
        "rival_crafts": 1,
        "rival_craft_vp": coins.vp,
        "validated_vp": 3,
        "seized": 1,
        "rival_craft_options": 0,
        "rival_only_options": 0,
    }


def test_option_tally_counts_decisions_that_offer_a_craft_abroad() -> None:
    coins = next(c for c in catalog().values() if c.item is not None and c.item.value == "coins")
    home = Command(CommandKind.CRAFT, Seat.A1, cards=(coins.id,), clearings=("autumn.fox",))
    abroad = Command(CommandKind.CRAFT, Seat.A1, to="winter.mound", cards=(coins.id,))
    end = Command(CommandKind.END_PHASE, Seat.A1)
    tally = dict.fromkeys(search_bench.CRAFT_KEYS, 0)
    for legal in ([end], [end, home], [end, home, abroad], [end, abroad]):
        search_bench.option_tally(legal, tally)
    assert tally["rival_craft_options"] == 2 and tally["rival_only_options"] == 1
