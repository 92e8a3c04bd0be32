"""The team search against the baseline: widening, the longer horizon, the team evaluation.

Each feature is checked on what it changes (which commands compete, which position is
judged, what an item is worth), never by wall time.
"""

from __future__ import annotations

from typing import TypeVar

import pytest

from frontier.bots import SearchBot, make_bot
from frontier.bots import search as search_module
from frontier.bots.evaluation import CARD, evaluate, horizon
from frontier.bots.playout import command_value
from frontier.bots.search import BASELINE, TEAM, SearchStyle
from frontier.bots.team_evaluation import (
    ITEM_DAMAGED,
    ITEM_EXHAUSTED,
    ITEM_READY,
    OFFICER,
    ROOST_KEPT,
    SAWMILL_ROUND,
    SUPPORTER,
    alliance_value,
    evaluate_team,
    income_value,
    item_value,
)
from frontier.engine import (
    Command,
    Seat,
    State,
    Team,
    execute,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.engine.factions.eyrie_board import ROOST_VP, roosts_on_map
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Faction, Item
from frontier.engine.pieces import RECRUITER, ROOST, SAWMILL
from frontier.engine.sympathy import AllianceState
from frontier.engine.vagabond_state import VagabondState, VItem


def _position(seed: int, min_options: int) -> tuple[State, Seat, list[Command]]:
    """The first own-turn decision of round 2 or later with at least ``min_options``
    commands, reached by greedy play."""
    config = make_config(seed=seed, lineup=R2_DEFAULT_LINEUP)
    state = initial_state(config)
    greedy = {s: make_bot("greedy", 100 + i) for i, s in enumerate(config.seats())}
    while (seat := to_act(state)) is not None:
        legal = legal_commands(state, seat)
        if state.round >= 2 and not state.decisions and len(legal) >= min_options:
            return state, seat, legal
        execute(state, greedy[seat].choose(state, seat, legal))
    raise AssertionError("no such position")


def test_search_is_the_baseline_style_and_search_team_the_team_one() -> None:
    old, new = make_bot("search", 3), make_bot("search-team", 3)
    assert isinstance(old, SearchBot) and isinstance(new, SearchBot)
    assert old.style is BASELINE and new.style is TEAM
    assert not BASELINE.widening and BASELINE.extra_turns == 0
    assert BASELINE.evaluator is evaluate
    assert TEAM.widening and TEAM.extra_turns >= 1
    assert TEAM.evaluator is evaluate_team


def test_both_styles_are_deterministic_given_a_seed() -> None:
    state, seat, legal = _position(5, 8)
    for style in (BASELINE, TEAM):
        first = SearchBot(9, iterations=10, style=style).choose(state, seat, legal)
        again = SearchBot(9, iterations=10, style=style).choose(state.clone(), seat, legal)
        assert first == again and first in legal


def test_widening_tries_the_policys_best_commands_first() -> None:
    """With widening, a node's first visits go to the commands the playout policy ranks
    highest, and no others compete until the node's visits widen it."""
    state, _seat, legal = _position(5, 12)
    root = search_module._Node()
    gen = 77
    tried: list[Command] = []
    for _ in range(search_module.WIDEN_BASE):
        cmd, child, gen = search_module._select(root, state, legal, gen, True)
        child.visits += 1
        child.total += 1.0
        tried.append(cmd)
    values = sorted((command_value(state, c) for c in legal), reverse=True)
    assert [command_value(state, c) for c in tried] == values[: len(tried)]
    assert len(set(tried)) == len(tried)
    cmd, _, gen = search_module._select(root, state, legal, gen, True)
    assert cmd in tried  # the width is still WIDEN_BASE: only the tried ones compete
    root.visits = 100
    cmd, _, gen = search_module._select(root, state, legal, gen, True)
    assert cmd not in tried  # widened: a new command enters


def test_the_width_grows_with_the_visits() -> None:
    widths = [search_module._width(n) for n in (0, 1, 16, 100)]
    assert widths[0] == search_module.WIDEN_BASE
    assert widths == sorted(widths) and widths[-1] > widths[0]


def test_the_longer_horizon_judges_a_position_after_the_next_turn() -> None:
    """The baseline judges at the end of the own turn, the team search one turn later."""
    state, seat, legal = _position(7, 5)
    order = [s for s in state.order if s in state.seats]
    judged: dict[int, set[Seat | None]] = {}
    for extra in (0, 1):
        seen: set[Seat | None] = set()

        def spy(s: State, team: Team, seen: set[Seat | None] = seen) -> float:
            seen.add(s.turn_seat)
            return 0.0

        style = SearchStyle(widening=False, extra_turns=extra, evaluator=spy, max_depth=400)
        SearchBot(2, iterations=6, style=style).choose(state, seat, legal)
        judged[extra] = seen
    nxt = order[(order.index(seat) + 1) % len(order)]
    after = order[(order.index(seat) + 2) % len(order)]
    assert judged[0] == {nxt}
    assert judged[1] == {after}


_Board = TypeVar("_Board", VagabondState, AllianceState)


def _with_board(seed: int, kind: type[_Board]) -> tuple[State, Seat, _Board]:
    """A new match of the R2 default lineup, and the seat whose faction board is a ``kind``."""
    state = initial_state(make_config(seed=seed, lineup=R2_DEFAULT_LINEUP))
    seat = next(s for s, st in state.seats.items() if isinstance(st.extra, kind))
    board = state.seats[seat].extra
    assert isinstance(board, kind)
    return state, seat, board


def test_a_vagabonds_items_count_for_its_team_ready_above_exhausted_above_damaged() -> None:
    state, vagabond, vs = _with_board(1, VagabondState)
    state.round = 1
    team = vagabond.team
    base = item_value(state, team)
    values = []
    for item in (
        VItem(Item.SWORD),
        VItem(Item.SWORD, exhausted=True),
        VItem(Item.SWORD, damaged=True),
    ):
        vs.items.append(item)
        values.append(item_value(state, team) - base)
        vs.items.pop()
    assert values == pytest.approx([ITEM_READY, ITEM_EXHAUSTED, ITEM_DAMAGED])
    assert values[0] > values[1] > values[2] > 0
    rival = Team.B if team is Team.A else Team.A
    assert item_value(state, rival) == pytest.approx(-base)
    vs.items.append(VItem(Item.BOOTS, contraband=True))  # its worth is the way home
    assert item_value(state, team) == pytest.approx(base)
    assert evaluate_team(state, team) == pytest.approx(
        evaluate(state, team) + item_value(state, team) + alliance_value(state, team)
    )


def test_a_mobilized_card_is_worth_more_on_the_supporters_than_in_hand_and_an_officer_counts() -> (
    None
):
    """The Alliance gains supporters in Daylight and spends them in the next Birdsong, past
    the search's horizon: a supporter must be worth more than the hand card it was, or the
    search never mobilizes and its Alliance cannot spread sympathy (base Root §11, R12)."""
    state, alliance, board = _with_board(3, AllianceState)
    state.round = 2
    team = alliance.team
    rival = Team.B if team is Team.A else Team.A
    card = state.deck.pop()  # the top card, drawn into the hand and then mobilized
    before = evaluate_team(state, team)
    state.seats[alliance].hand.append(card)
    in_hand = evaluate_team(state, team)
    state.seats[alliance].hand.pop()
    board.supporters.append(card)
    mobilized = evaluate_team(state, team)
    board.officers += 1
    trained = evaluate_team(state, team)
    h = horizon(state)
    assert in_hand - before == pytest.approx(CARD * h)
    assert mobilized - before == pytest.approx(SUPPORTER * h)
    assert mobilized > in_hand
    assert trained - mobilized == pytest.approx(OFFICER * h)
    assert alliance_value(state, rival) == pytest.approx(-alliance_value(state, team))


def _placed(state: State, seat: Seat, piece: str, clearing: str) -> State:
    """A copy of ``state`` with one more ``piece`` of ``seat`` in ``clearing``, from its
    supply."""
    trial = state.clone()
    kinds = trial.pieces[clearing].setdefault(seat, {})
    kinds[piece] = kinds.get(piece, 0) + 1
    trial.seats[seat].supply[piece] -= 1
    return trial


def test_a_sawmill_and_a_roost_are_worth_their_income_in_each_round_after_this_one() -> None:
    """A sawmill yields its wood every Birdsong and a roost scores the Roost track every
    Evening, past the search's horizon: a sawmill must be worth more than a recruiter put
    in its place, and a roost its step of the track, for each round left after this one,
    or the search's Marquise builds no economy and scores as greedy's (base Root §8-9)."""
    state = initial_state(
        make_config(seed=4, lineup="A=marquise,eyrie,thief;B=marquise,eyrie,thief")
    )
    state.round = 2
    rounds = state.options.max_rounds - state.round
    marquise = next(
        s for s in state.seats if s.team is Team.A and state.seats[s].faction is Faction.MARQUISE
    )
    eyrie = next(
        s for s in state.seats if s.team is Team.A and state.seats[s].faction is Faction.EYRIE
    )
    clearing = next(iter(state.pieces))
    sawmill = _placed(state, marquise, SAWMILL, clearing)
    recruiter = _placed(state, marquise, RECRUITER, clearing)
    # on top of what the plain evaluation makes of either building
    over_sawmill = evaluate_team(sawmill, Team.A) - evaluate(sawmill, Team.A)
    over_recruiter = evaluate_team(recruiter, Team.A) - evaluate(recruiter, Team.A)
    assert over_sawmill - over_recruiter == pytest.approx(SAWMILL_ROUND * rounds)

    two = _placed(_placed(state, eyrie, ROOST, clearing), eyrie, ROOST, clearing)
    three = _placed(two, eyrie, ROOST, clearing)
    step = ROOST_VP[roosts_on_map(three, eyrie)] - ROOST_VP[roosts_on_map(two, eyrie)]
    assert step > 0
    gained = income_value(three, Team.A) - income_value(two, Team.A)
    assert gained == pytest.approx(ROOST_KEPT * step * rounds)
    assert income_value(three, Team.B) == pytest.approx(-income_value(three, Team.A))

    three.round = state.options.max_rounds  # no round after this one: no income to come
    assert income_value(three, Team.A) == 0
