"""``GetGameData``'s content: the static data a bot in any language plans with.

Checked against the engine's own objects, so the published map and deck are exactly the
ones the rules play with.
"""

from __future__ import annotations

from collections import Counter

from frontier.engine import Seat, initial_state, make_config
from frontier.engine.board import BRIDGES, board
from frontier.engine.cards import catalog
from frontier.engine.lineup import R2_DEFAULT_LINEUP, parse_lineup
from frontier.engine.model import Faction, Item, Suit
from frontier.engine.vagabond_state import quests
from frontier.v1 import game_data_pb2, types_pb2
from frontier.wire import enum_from_proto
from frontier.wire.game_data import game_data, match_info


def test_the_mega_map_is_the_engines_board() -> None:
    data = game_data()
    b = board()
    assert [c.id for c in data.clearings] == list(b.order)
    assert len(data.clearings) == 24 and [m.name for m in data.maps] == ["autumn", "winter"]
    for c in data.clearings:
        info = b.clearings[c.id]
        assert list(c.adjacent_ids) == list(b.adjacent[c.id])
        assert (c.slots, c.ruin, c.corner, c.map_name) == (
            info.slots,
            info.ruin,
            info.corner,
            info.map,
        )
        assert c.x > 0 and c.y > 0 and c.name == info.name
        printed = enum_from_proto(Suit, c.suit) if c.suit else None
        assert printed == info.printed_suit
        assert list(c.forest_ids) == list(b.clearing_forests[c.id])
    assert all(
        c.suit == types_pb2.SUIT_UNSPECIFIED for c in data.clearings if c.map_name == "winter"
    )
    # paths + bridges are exactly the adjacency, and every link is listed once
    links = {(p.a, p.b) for p in (*data.paths, *data.bridges)}
    assert len(links) == len(data.paths) + len(data.bridges)
    adjacency = {tuple(sorted((a, d))) for a, ds in b.adjacent.items() for d in ds}
    assert links == adjacency
    assert {(link.a, link.b) for link in data.bridges} == {tuple(sorted(p)) for p in BRIDGES}
    assert len(data.rivers) == 7 and all(r.a < r.b for r in data.rivers)
    assert {f.id: tuple(f.clearing_ids) for f in data.forests} == b.forests
    assert sorted(f for m in data.maps for f in m.forest_ids) == sorted(b.forests)


def test_the_deck_items_quests_and_factions() -> None:
    data = game_data()
    cat = catalog()
    assert [c.id for c in data.cards] == list(cat) and len(data.cards) == 47
    for c in data.cards:
        card = cat[c.id]
        assert (c.name, c.type, c.kind, c.vp, tuple(c.cost)) == (
            card.name,
            card.type,
            card.kind.value,
            card.vp,
            card.cost,
        )
        assert enum_from_proto(Suit, c.suit) is card.suit and c.text
        assert (enum_from_proto(Item, c.item) if c.item else None) == card.item
    assert Counter(c.kind for c in data.cards)["ambush"] == 5
    assert {enum_from_proto(Item, i.item): i.per_map for i in data.items}[Item.BOOTS] == 2
    assert [q.id for q in data.quests] == list(quests()) and all(
        len(q.items) == 2 for q in data.quests
    )
    factions = {enum_from_proto(Faction, f.faction): f for f in data.factions}
    assert set(factions) == set(Faction)
    marquise = {p.kind: p.count for p in factions[Faction.MARQUISE].supply}
    assert marquise["warrior"] == 25 and factions[Faction.EYRIE].crafting_piece == "roost"
    assert len(factions[Faction.VAGABOND].characters) == 3


def test_lineup_rules_accept_what_the_parser_accepts() -> None:
    rules = game_data().lineup
    assert rules.default_lineup == R2_DEFAULT_LINEUP
    assert len(rules.turn_order) == 6 and game_data().rules.max_rounds == 6
    words = [list(r.accepts) for r in rules.roles]
    for first in words[0]:
        for second in words[1]:
            for third in words[2]:
                lineup = f"A={first},{second},{third};B={first}"
                assert len(parse_lineup(lineup)) == 4


def test_match_info_has_the_seeded_suits_and_never_the_seed() -> None:
    config = make_config(seed=987654321, lineup=R2_DEFAULT_LINEUP, max_rounds=4)
    state = initial_state(config)
    clock = game_data_pb2.MatchInfo(decision_budget_ms=500, strike_limit=3, takeover_bot="greedy")
    info = match_info("m1", config, state.suits, seed_fixed=True, clock=clock)
    assert {s.clearing: enum_from_proto(Suit, s.suit).value for s in info.suits} == state.suits
    assert [enum_from_proto(Seat, s.seat) for s in info.seats] == list(state.order)
    assert info.lineup == R2_DEFAULT_LINEUP and info.max_rounds == 4 and info.seed_fixed
    assert (info.decision_budget_ms, info.takeover_bot) == (500, "greedy")
    assert "987654321" not in str(info) and str(state.rng) not in str(info)


def test_every_craftable_item_card_publishes_its_craft_points() -> None:
    cat = catalog()
    for c in game_data().cards:
        if cat[c.id].item is not None:
            assert c.vp == cat[c.id].vp > 0, c.id  # a persistent card's craft scores nothing


def test_faction_tracks_are_the_engines_scoring_tables() -> None:
    from frontier.engine.factions import alliance, eyrie_board, marquise, vagabond_actions
    from frontier.engine.vagabond_state import TRACK_LEVELS

    scoring = game_data_pb2.TrackScoring
    tracks = {
        enum_from_proto(Faction, f.faction): {t.name: t for t in f.tracks}
        for f in game_data().factions
    }
    assert set(tracks[Faction.MARQUISE]) == set(marquise.BUILD_VP)
    for building, points in marquise.BUILD_VP.items():
        track = tracks[Faction.MARQUISE][building]
        assert tuple(track.points) == points and tuple(track.costs) == marquise.BUILD_COST
        assert track.scoring == scoring.TRACK_SCORING_ON_PLACEMENT
    roost = tracks[Faction.EYRIE]["roost"]
    assert tuple(roost.points) == eyrie_board.ROOST_VP
    assert roost.scoring == scoring.TRACK_SCORING_EACH_EVENING
    sympathy = tracks[Faction.ALLIANCE]["sympathy"]
    assert tuple(sympathy.points) == alliance.SYMPATHY_VP
    assert tuple(sympathy.costs) == alliance.SYMPATHY_COST
    relationship = tracks[Faction.VAGABOND]["relationship"]
    assert tuple(relationship.levels) == TRACK_LEVELS
    reached = dict(zip(relationship.levels, relationship.points, strict=True))
    assert {k: reached[k] for k in vagabond_actions.VP_ON_REACH} == vagabond_actions.VP_ON_REACH
    assert relationship.points_when_maxed == vagabond_actions.ALLIED_AID_VP
