"""The bot check's pieces that need no server: where each faction sits, how a bot command
is started, what counts as a Python bot, and how a report judges a match."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from frontier.engine import Seat
from frontier.engine.lineup import parse_lineup
from frontier.testing.checkbot import FACTIONS, placement
from frontier.testing.players import CommandPlayer, as_strategy
from frontier.testing.report import CheckReport, MatchReport, Rejected


@pytest.mark.parametrize("faction", FACTIONS)
def test_every_faction_of_the_rotation_has_a_seat_that_plays_it(faction):
    lineup, seat = placement(faction)
    spec = parse_lineup(lineup)[seat]
    assert faction in {spec.faction.value, spec.character.value if spec.character else ""}


def test_a_seat_name_places_the_bot_in_the_default_lineup():
    assert placement("b2")[1] is Seat.B2


def test_an_unknown_placement_says_what_is_known():
    with pytest.raises(ValueError, match="marquise"):
        placement("dragon")


SHOW = "import json, os, sys; print(json.dumps([sys.argv[1:], os.environ['FRONTIER_BOT_TOKEN']]))"
ECHO = f'{sys.executable} -c "{SHOW}"'


def test_a_command_without_placeholders_gets_the_bot_arguments_and_the_token_in_its_env(
    tmp_path,
):
    player = CommandPlayer(ECHO, "127.0.0.1:1", "m" * 32, Seat.A3, "secret", tmp_path)
    assert player.wait(60) == 0
    assert player.log is not None
    argv, token = json.loads(player.log.read_text())
    assert argv == ["--url", "127.0.0.1:1", "--match", "m" * 32, "--seat", "A3"]
    assert token == "secret"


def test_placeholders_are_filled_and_the_token_file_holds_the_token(tmp_path):
    player = CommandPlayer(
        ECHO + " {seat} --token-file={token_file}", "h:2", "abc", Seat.B1, "tok", tmp_path
    )
    assert player.wait(60) == 0
    assert player.log is not None
    argv, _ = json.loads(player.log.read_text())
    assert argv[0] == "B1"
    token_file = argv[1].removeprefix("--token-file=")
    assert Path(token_file).read_text() == "tok"


def test_a_missing_program_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="cannot start the bot"):
        CommandPlayer("no-such-bot-program-here", "h:1", "m", Seat.A1, "t", tmp_path)


class FirstLegal:
    def choose(self, decision):
        return decision.legal[0].id


def test_a_strategy_its_class_and_a_function_are_all_python_bots():
    assert isinstance(as_strategy(FirstLegal), FirstLegal)
    bot = FirstLegal()
    assert as_strategy(bot) is bot
    assert as_strategy(lambda decision: "7").choose(None) == "7"  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        as_strategy(42)  # type: ignore[arg-type]


def _finished() -> MatchReport:
    return MatchReport(
        "m1", "A1", "marquise", "A=marquise;B=marquise", finished=True, winner="A", bot_exit=0
    )


def test_a_finished_match_without_faults_passes():
    report = _finished()
    report.judge()
    assert report.ok
    assert CheckReport([report]).to_json()["ok"] is True


def test_every_fault_is_a_problem_and_the_reasons_are_listed():
    report = _finished()
    report.bot_exit, report.strikes, report.taken_over = 3, 2, True
    report.rejected_count = 4
    report.rejected = [Rejected("5", "nope", "UNKNOWN_LEGAL_ID", "no legal command 'nope'")]
    report.judge()
    assert not report.ok
    text = " | ".join(report.problems)
    assert "status 3" in text
    assert "2 missed deadline(s), and the built-in bot took the seat over" in text
    assert "4 rejected answer(s): UNKNOWN_LEGAL_ID" in text
    table = CheckReport([report]).table()
    assert "FAILED" in table
    assert "rejected: UNKNOWN_LEGAL_ID" in table


def test_an_unfinished_match_or_a_hung_bot_fails():
    report = MatchReport("m", "A1", "marquise", "", finished=False, bot_exit=None, rounds=2)
    report.judge()
    assert any("still running" in p for p in report.problems)
    assert any("did not finish (round 2)" in p for p in report.problems)


def test_a_check_of_no_match_does_not_pass():
    assert not CheckReport().ok
