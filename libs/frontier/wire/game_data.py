"""The game's static data (``frontier.v1.GameData``) and a match's own facts (``MatchInfo``).

Why here and built from the engine's objects: a bot in another language must be able to
plan without hard-coding the 24-clearing mega-map or the deck.  Everything comes from what
the engine itself plays with (``board()``, ``catalog()``, ``quests()``, the faction rules),
so the published data can never disagree with the rules; only what the engine does not keep
in its own records (drawing positions, rivers, printed names) is read from the same packaged
data file the engine loads.  ``game_data()`` is built once per process: it never changes.
"""

from __future__ import annotations

from functools import cache

from frontier.engine.board import BRIDGES, HOME_MAP, MAPS, board, raw_data
from frontier.engine.cards import Card, catalog
from frontier.engine.config import MatchConfig
from frontier.engine.factions import alliance, eyrie_board, marquise, vagabond_actions
from frontier.engine.lineup import accepted_by, default_lineup, format_lineup
from frontier.engine.model import Character, Faction, Role, Seat, Suit
from frontier.engine.pieces import SYMPATHY
from frontier.engine.registry import REGISTRY
from frontier.engine.setup import FACE_UP_QUESTS, STARTING_HAND, map_stock
from frontier.engine.state import SeatSpec
from frontier.engine.turn import HAND_LIMIT
from frontier.engine.vagabond_state import TRACK_LEVELS, quests
from frontier.v1 import game_data_pb2, types_pb2
from frontier.wire.enums import (
    character_number,
    faction_number,
    item_number,
    role_number,
    seat_number,
    suit_number,
    team_number,
)
from frontier.wire.kinds import CARD_KINDS, PIECES

__all__ = ["LINEUP_FORMAT", "game_data", "match_info"]

LINEUP_FORMAT = "A=<military1>[,<second>[,<vagabond>]];B=<military1>[,<second>[,<vagabond>]]"
_MAX_ROUNDS = MatchConfig.model_fields["max_rounds"].default


def _qualify(map_name: str, name: str) -> str:
    return f"{map_name}.{name.lower()}"


def _link(a: str, b: str) -> game_data_pb2.Link:
    first, second = sorted((a, b))
    return game_data_pb2.Link(a=first, b=second)


def _links(pairs: set[tuple[str, str]]) -> list[game_data_pb2.Link]:
    return [_link(a, b) for a, b in sorted(pairs)]


def _pairs(map_name: str, key: str) -> set[tuple[str, str]]:
    raw = raw_data()["maps"][map_name][key]
    return {
        (min(p), max(p)) for p in ((_qualify(map_name, a), _qualify(map_name, b)) for a, b in raw)
    }


def _clearings() -> list[types_pb2.Clearing]:
    b = board()
    raw = {_qualify(m, c["id"]): c for m in MAPS for c in raw_data()["maps"][m]["clearings"]}
    out = []
    for cid in b.order:
        info = b.clearings[cid]
        printed = raw[cid]
        out.append(
            types_pb2.Clearing(
                id=cid,
                suit=suit_number(info.printed_suit),
                slots=info.slots,
                map_name=info.map,
                adjacent_ids=b.adjacent[cid],
                ruin=info.ruin,
                name=info.name,
                corner=info.corner,
                opposite_corner=info.opposite_corner or "",
                priority=info.priority,
                x=int(printed["x"]),
                y=int(printed["y"]),
                river_ids=sorted(_qualify(info.map, r) for r in printed.get("rivers_to", ())),
                forest_ids=b.clearing_forests[cid],
            )
        )
    return out


def _card_text(card: Card, raw: dict[str, object]) -> str:
    effect = raw.get("effect")
    if isinstance(effect, str) and effect:
        return effect
    if card.item is not None:
        return f"Craft: take a {card.item.value} from the map's stock and score {card.vp} VP."
    return card.name


def _cards() -> list[types_pb2.Card]:
    raw = {r["id"]: r for r in raw_data()["deck"]["cards"]}
    return [
        types_pb2.Card(
            id=c.id,
            name=c.name,
            suit=suit_number(c.suit),
            kind=c.kind.value,
            card_kind=CARD_KINDS[c.kind.value],
            type=c.type,
            cost=c.cost,
            item=item_number(c.item),
            vp=c.vp,
            text=_card_text(c, raw[c.type]),
        )
        for c in catalog().values()
    ]


_ON_PLACEMENT = game_data_pb2.TrackScoring.TRACK_SCORING_ON_PLACEMENT


def _tracks(faction: Faction) -> list[game_data_pb2.ScoringTrack]:
    """A faction's scoring tracks, read from the tables its rules score with."""
    if faction is Faction.MARQUISE:
        return [
            game_data_pb2.ScoringTrack(
                name=building,
                scoring=_ON_PLACEMENT,
                points=points,
                costs=marquise.BUILD_COST,
            )
            for building, points in marquise.BUILD_VP.items()
        ]
    if faction is Faction.EYRIE:
        return [
            game_data_pb2.ScoringTrack(
                name="roost",
                scoring=game_data_pb2.TrackScoring.TRACK_SCORING_EACH_EVENING,
                points=eyrie_board.ROOST_VP,
            )
        ]
    if faction is Faction.ALLIANCE:
        return [
            game_data_pb2.ScoringTrack(
                name=SYMPATHY,
                scoring=_ON_PLACEMENT,
                points=alliance.SYMPATHY_VP,
                costs=alliance.SYMPATHY_COST,
            )
        ]
    return [_relationship_track()]


def _relationship_track() -> game_data_pb2.ScoringTrack:
    """The Vagabond's relationship track with a rival faction (R34): VP on reaching a level."""
    reach, points = vagabond_actions.AIDS_TO_REACH, vagabond_actions.VP_ON_REACH
    return game_data_pb2.ScoringTrack(
        name="relationship",
        scoring=game_data_pb2.TrackScoring.TRACK_SCORING_ON_LEVEL,
        points=[points.get(level, 0) for level in TRACK_LEVELS],
        levels=TRACK_LEVELS,
        steps=[reach.get(level, 0) for level in TRACK_LEVELS],
        points_when_maxed=vagabond_actions.ALLIED_AID_VP,
    )


def _factions() -> list[game_data_pb2.FactionInfo]:
    raw = raw_data()["factions"]
    out = []
    for faction, rules in REGISTRY.items():
        spec = SeatSpec(faction, Character.THIEF if faction is Faction.VAGABOND else None)
        out.append(
            game_data_pb2.FactionInfo(
                faction=faction_number(faction),
                name=str(raw[faction.value]["name"]),
                crafting_piece=rules.crafting_piece,
                crafting_piece_kind=PIECES[rules.crafting_piece],
                supply=[
                    types_pb2.PieceCount(kind=k, count=n, piece=PIECES[k])
                    for k, n in sorted(rules.supply(spec).items())
                ],
                characters=(
                    [character_number(c) for c in Character] if faction is Faction.VAGABOND else []
                ),
                tracks=_tracks(faction),
            )
        )
    return out


@cache
def game_data() -> game_data_pb2.GameData:
    """Everything static about the game, as one message (the same for every match)."""
    b = board()
    maps_raw = raw_data()["maps"]
    paths: set[tuple[str, str]] = set()
    rivers: set[tuple[str, str]] = set()
    for m in MAPS:
        paths |= _pairs(m, "paths")
        rivers |= _pairs(m, "rivers")
    bridges = {(min(p), max(p)) for p in BRIDGES}
    home = {m: t for t, m in HOME_MAP.items()}
    return game_data_pb2.GameData(
        maps=[
            game_data_pb2.GameMap(
                name=m,
                display_name=str(maps_raw[m]["name"]),
                home_team=team_number(home[m]),
                suits_printed=bool(maps_raw[m]["suits_fixed"]),
                clearing_ids=b.on_map(m),
                forest_ids=sorted(f for f in b.forests if b.map_of(f) == m),
            )
            for m in MAPS
        ],
        clearings=_clearings(),
        paths=_links(paths),
        bridges=_links(bridges),
        rivers=_links(rivers),
        forests=[
            game_data_pb2.Forest(
                id=f,
                map_name=b.map_of(f),
                clearing_ids=members,
                adjacent_forest_ids=b.forest_adjacent.get(f, ()),
            )
            for f, members in sorted(b.forests.items())
        ],
        cards=_cards(),
        items=[
            game_data_pb2.ItemStock(item=item_number(i), per_map=n) for i, n in map_stock().items()
        ],
        quests=[
            game_data_pb2.Quest(
                id=q.id,
                name=q.name,
                suit=suit_number(q.suit),
                items=[item_number(i) for i in q.items],
            )
            for q in quests().values()
        ],
        factions=_factions(),
        lineup=game_data_pb2.LineupRules(
            format=LINEUP_FORMAT,
            default_lineup=default_lineup(),
            roles=[
                game_data_pb2.RoleRule(role=role_number(r), accepts=sorted(accepted_by(r)))
                for r in Role
            ],
            turn_order=[seat_number(s) for s in Seat],
        ),
        rules=game_data_pb2.RuleConstants(
            max_rounds=_MAX_ROUNDS,
            starting_hand=STARTING_HAND,
            hand_limit=HAND_LIMIT,
            face_up_quests=FACE_UP_QUESTS,
        ),
    )


def match_info(
    match_id: str,
    config: MatchConfig,
    suits: dict[str, str],
    *,
    seed_fixed: bool,
    clock: game_data_pb2.MatchInfo,
) -> game_data_pb2.MatchInfo:
    """One match's own facts: its lineup, its seeded suits (R5) and its settings.

    ``suits`` is the match state's clearing -> suit map (public from the first view on);
    ``seed_fixed`` says whether the creator chose the seed (the orchestrator draws a secret
    one otherwise, so ``config.seed`` alone cannot tell); ``clock`` carries the clock
    fields, which the orchestrator owns.  The seed itself never appears.
    """
    lineup = config.seats()
    info = game_data_pb2.MatchInfo(
        match_id=match_id,
        lineup=format_lineup(lineup),
        seats=[
            game_data_pb2.LineupSeat(
                seat=seat_number(seat),
                faction=faction_number(spec.faction),
                character=character_number(spec.character),
            )
            for seat, spec in lineup.items()
        ],
        suits=[
            game_data_pb2.ClearingSuit(clearing=c, suit=suit_number(Suit(suits[c])))
            for c in board().order
        ],
        max_rounds=config.max_rounds,
        team_hands_visible=config.team_hands_visible,
        seed_fixed=seed_fixed,
    )
    info.MergeFrom(clock)
    return info
