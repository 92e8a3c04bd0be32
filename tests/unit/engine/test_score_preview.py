"""The cost and certain VP of a legal command (engine/score_preview.py), ruling by ruling.

Each test compares the preview with what playing the command really does, so a preview that
drifted from the rules would fail here."""

from __future__ import annotations

import random

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    Event,
    EventKind,
    Seat,
    State,
    Team,
    evolve,
    execute,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.engine.factions.marquise import BUILD_COST, BUILD_VP
from frontier.engine.hashing import state_hash
from frontier.engine.model import Item
from frontier.engine.score_preview import NO_COST, Cost, Preview, certain_vp, chance, preview
from frontier.engine.vagabond_state import vstate
from tests.contraband_helpers import A1, B2, QUARRY, drop, full_position
from tests.engine_helpers import (
    A,
    B,
    KindFirstBot,
    dice_seed,
    new_state,
    play,
    playout,
    position,
    put,
)
from tests.vagabond_helpers import A3, CREEK, vb_position

MEADOW = "autumn.meadow"


def test_marquise_sawmill_on_the_third_slot_scores_its_track_points_and_costs_wood() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 1, "wood": 2}}})
    put(state, MEADOW, A, "sawmill", 2)  # two on the map: the third is next
    cmd = Command(CommandKind.BUILD, A, clearing=CREEK, piece="sawmill")
    before = state_hash(state)
    found = preview(state, cmd)
    assert state_hash(state) == before  # the state is left as it was
    assert found.vp == BUILD_VP["sawmill"][2] == 2
    assert found.cost == Cost(wood=BUILD_COST[2])
    play(state, cmd)
    assert state.scores[Team.A] == found.vp


def test_craft_of_a_card_worth_2_scores_2_and_spends_the_card() -> None:
    state = position(step="daylight.craft", pieces={CREEK: {A: {"workshop": 1}}}, hands={A: []})
    fox = MEADOW
    put(state, fox, A, "workshop", 1)
    state.seats[A].hand = ["anvil"]  # hammer, fox, 2 VP
    state.deck.remove("anvil")
    cmd = Command(CommandKind.CRAFT, A, cards=("anvil",), clearings=(fox,))
    assert cmd in legal_commands(state, A)
    found = preview(state, cmd)
    assert found.vp == 2 and found.cost == Cost(cards=("anvil",))


def test_a_quest_for_vp_scores_the_quests_done_of_its_suit_and_exhausts_its_items() -> None:
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["torch", "sword", "tea"]}})
    state.quests = ["guard_duty_rabbit", "escort_mouse", "errand_fox"]
    vstate(state, A3).quests_done = ["errand_rabbit"]
    vp = Command(CommandKind.QUEST, A3, piece="guard_duty_rabbit", target="vp")
    draw = Command(CommandKind.QUEST, A3, piece="guard_duty_rabbit", target="draw")
    found = preview(state, vp)
    assert found.vp == 2  # the second rabbit quest
    assert sorted(found.cost.items_exhausted) == sorted([Item.TORCH, Item.SWORD])
    assert certain_vp(state, draw) == 0  # two cards instead: no VP


def test_R19_a_seize_scores_1_vp_for_certain() -> None:
    state = full_position(actions=2, pieces={QUARRY: {A1: {"warrior": 1}}})
    drop(state, QUARRY, Item.COINS, B2)
    seize = Command(CommandKind.SEIZE, A1, clearing=QUARRY, piece="coins", target="B2")
    assert certain_vp(state, seize) == 1


def test_a_battle_has_no_certain_vp_even_when_the_dice_would_win_it() -> None:
    state = position(
        seed=dice_seed(3, 3), pieces={CREEK: {A: {"warrior": 3}, B: {"sawmill": 1, "wood": 1}}}
    )
    battle = Command(CommandKind.BATTLE, A, clearing=CREEK, target=B.value)
    assert battle in legal_commands(state, A)
    found = preview(state, battle)
    assert found.vp is None and found.cost is NO_COST
    events = play(state, battle)
    assert any(e.kind is EventKind.SCORED for e in events)  # it did score, by the dice


def test_a_move_costs_nothing_and_scores_nothing() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 2}}})
    march = next(c for c in legal_commands(state, A) if c.kind is CommandKind.MARCH)
    assert preview(state, march).vp == 0
    assert preview(state, march).cost is NO_COST


def test_preview_agrees_with_playing_every_certain_command_of_a_random_match() -> None:
    """Over a six-seat match: a command's certain VP is what playing it scores its team."""
    state = new_state(7, lineup="A=marquise,eyrie,thief;B=marquise,alliance,tinker")
    bot = KindFirstBot(11, 1)
    checked = 0
    while not state.over and checked < 400:
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        for cmd in legal[:8]:
            vp = certain_vp(state, cmd)
            if vp is None:
                continue
            copy = state.clone()
            scored = _team_scored(execute(copy, cmd), cmd.seat.team.value)
            assert scored >= vp, cmd  # the turn may score more on its own afterwards
            checked += 1
        execute(state, bot.choose(legal))
    assert checked >= 100


def _team_scored(events: list[Event], team: str) -> int:
    return sum(e.amount for e in events if e.kind is EventKind.SCORED and e.target == team)


def test_royal_claim_scores_the_clearings_ruled_and_costs_the_card_in_play() -> None:
    state = position(
        step="birdsong.cards",
        pieces={CREEK: {A: {"warrior": 1}}, "autumn.hill": {A: {"sawmill": 1}}},
        in_play={A: ["royal_claim"]},
    )
    found = preview(state, Command(CommandKind.ROYAL_CLAIM, A))
    assert found.vp == 2 and found.cost == Cost(cards=("royal_claim",))


def test_alliance_revolt_scores_the_rival_buildings_and_tokens_it_removes() -> None:
    from tests.alliance_helpers import A2, B1, BIRD, alliance_position, sym

    meadow = "autumn.meadow"  # fox; a rival's sawmill and wood besides 2 warriors
    state = alliance_position(
        pieces={
            meadow: {A2: sym(), B1: {"warrior": 2, "sawmill": 1, "wood": 1}},
            "autumn.hill": {A2: sym()},
        },
        supporters={A2: ["anvil", "foxfolk_steel", BIRD]},
    )
    revolt = next(
        c
        for c in legal_commands(state, A2)
        if c.kind is CommandKind.REVOLT and c.clearing == meadow
    )
    found = preview(state, revolt)
    assert found.vp == 2  # the sawmill and the wood
    assert found.cost.supporters == revolt.cards and not found.cost.cards


def test_R34_aid_to_a_rival_scores_on_reaching_amiable_and_exhausts_the_item() -> None:
    from tests.vagabond_helpers import B1

    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 1}}},
        hands={A3: ["bake_sale"]},
        vagabonds={A3: {"location": CREEK, "items": ["boots"]}},
    )
    aid = Command(CommandKind.AID, A3, target="B1", cards=("bake_sale",), piece="boots")
    found = preview(state, aid)
    assert found.vp == 1
    assert found.cost == Cost(cards=("bake_sale",), items_exhausted=(Item.BOOTS,))


def _redealt(state: State, actor: Seat, pick: random.Random) -> State:
    """``state`` with everything ``actor`` may not see dealt anew: the deck order, the other
    seats' hands (same sizes), the ruins' items, the quest deck's order and the seed."""
    out = state.clone()
    others = [s for s in out.order if s is not actor]
    pool = list(out.deck) + [c for s in others for c in out.seats[s].hand]
    pick.shuffle(pool)
    for s in others:
        n = len(out.seats[s].hand)
        out.seats[s].hand, pool = pool[:n], pool[n:]
    out.deck = pool
    items = [i for ruin in out.ruins.values() for i in ruin]
    pick.shuffle(items)
    for clearing, ruin in out.ruins.items():
        out.ruins[clearing], items = items[: len(ruin)], items[len(ruin) :]
    pick.shuffle(out.quest_deck)
    out.rng = pick.getrandbits(64)
    return out


@pytest.mark.parametrize(
    ("seed", "lineup"),
    [
        (13, "A=marquise,eyrie,thief;B=marquise,alliance,ranger"),
        (14, "A=marquise,alliance,tinker;B=marquise,eyrie,thief"),
        (15, "A=marquise,eyrie,ranger;B=marquise,eyrie,tinker"),
    ],
)
def test_no_preview_depends_on_what_the_seat_may_not_see(seed: int, lineup: str) -> None:
    """Dealing the hidden cards, ruins and seed anew never changes a command's cost or VP."""
    state = new_state(seed, lineup=lineup)
    bot = KindFirstBot(seed + 4, 1)
    pick = random.Random(seed)
    compared = 0
    while not state.over and compared < 1500:
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        if not state.known_hands:  # a hand the seat was shown may legitimately count
            other = _redealt(state, seat, pick)
            assert legal_commands(other, seat) == legal
            for cmd in legal:
                assert preview(other, cmd) == preview(state, cmd), cmd
                compared += 1
        execute(state, bot.choose(legal))
    assert compared >= 500


@pytest.mark.parametrize(
    "lineup",
    ["A=marquise,eyrie,thief;B=marquise,alliance,ranger", "A=marquise,,tinker;B=marquise,,thief"],
)
def test_every_event_that_draws_from_the_generator_is_a_chance_event(lineup: str) -> None:
    """The cut of a preview relies on it: folding any other event leaves the seed alone."""
    config = make_config(seed=21, lineup=lineup)
    _, log = playout(21, 3, lineup=lineup)
    state = initial_state(config)
    drew = 0
    for _, events in log:
        for e in events:
            before = state.rng
            evolve(state, e)
            if state.rng != before:
                assert chance(e), e
                drew += 1
    assert drew > 0


def test_a_vagabond_strike_on_a_building_scores_1_vp_and_exhausts_the_crossbow() -> None:
    from tests.vagabond_helpers import B1

    state = vb_position(
        pieces={CREEK: {B1: {"sawmill": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["crossbow"]}},
    )
    found = preview(state, Command(CommandKind.STRIKE, A3, target="B1", piece="sawmill"))
    assert found == Preview(Cost(items_exhausted=(Item.CROSSBOW,)), 1)
