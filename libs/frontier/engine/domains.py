"""Which domain service owns which command (the distributed server's routing table).

Every domain service runs this same engine, so routing decides *who* computes a command's
events, never *what* they are: the in-process path and the distributed path give the same
events by construction, and tests check it.  A command answering a decision (DECLINE) goes
to the domain of that decision.
"""

from __future__ import annotations

from enum import StrEnum

from .model import Command, CommandKind
from .state import State


class Domain(StrEnum):
    MAP = "map"
    COMBAT = "combat"
    CRAFTING = "crafting"
    SCORING = "scoring"
    TURN_ORDER = "turn_order"


_BY_KIND: dict[Domain, frozenset[str]] = {
    Domain.MAP: frozenset(
        {
            "place_keep",
            "place_building",
            "march",
            "recruit",
            "build",
            "overwork",
            "place_wood",
            "cobbler",
            "tax_collector",
            # Woodland Alliance: sympathy placement, its moves and the faction board
            "spread_sympathy",
            "organize",
            "move",
            "mobilize",
            "train",
            "outrage",  # R25: the card a mover gives for Outrage
            # Vagabond: the pawn's setup, slip and moves
            "place_pawn",
            "slip",
            "vagabond_move",
            # Eyrie: roosts, the Decree's recruit / move / build, and R23's owed card
            "place_roost",
            "decree_recruit",
            "decree_move",
            "decree_build",
            "feed_eyrie",
        }
    ),
    Domain.COMBAT: frozenset(
        {
            "battle",
            "ambush",
            "foil",
            "use_effect",
            "remove_piece",
            "field_hospitals",
            "command_warren",
            "revolt",
            # Vagabond: strike, hits as damaged items, R15 intervention, War Veteran reroll
            "strike",
            "damage_item",
            "intervene",
            "reroll",
            # Eyrie: the Decree's battle
            "decree_battle",
            # R19: seizure of a dropped contraband item
            "seize",
        }
    ),
    Domain.CRAFTING: frozenset(
        {
            "craft",
            "stand_and_deliver",
            "better_burrow_bank",
            "codebreakers",
            # Vagabond: items, ruins, quests, aid, special actions, torch pick-up (R20)
            "refresh",
            "explore",
            "aid",
            "quest",
            "repair",
            "steal",
            "day_labor",
            "hideout",
            "pick_up",
            "take_item",
            # R18: collecting a dropped contraband item
            "collect",
            "choose_legendary",
            "remove_item",
        }
    ),
    Domain.SCORING: frozenset({"royal_claim"}),
    Domain.TURN_ORDER: frozenset(
        {
            "end_phase",
            "discard",
            "extra_action",
            # Eyrie: leaders, the Decree, Imperial Isolation (R24)
            "choose_leader",
            "add_to_decree",
            "skip_decree_card",
        }
    ),
}

OWNER: dict[str, Domain] = {kind: d for d, kinds in _BY_KIND.items() for kind in kinds}

_DECISION_OWNER: dict[str, Domain] = {
    "ambush": Domain.COMBAT,
    "foil": Domain.COMBAT,
    "battle_effects": Domain.COMBAT,
    "allocate_hits": Domain.COMBAT,
    "field_hospitals": Domain.COMBAT,
    "command_warren": Domain.COMBAT,
    "better_burrow_bank": Domain.CRAFTING,
    "cobbler": Domain.MAP,
    "recruit": Domain.MAP,  # the Marquise's recruiters with a short supply
    "damage_items": Domain.COMBAT,
    "intervention": Domain.COMBAT,
    "loot": Domain.COMBAT,
    "reroll": Domain.COMBAT,
    "aid_take": Domain.CRAFTING,
    "legendary": Domain.CRAFTING,
    "hideout": Domain.CRAFTING,
}


def owner(state: State, cmd: Command) -> Domain:
    if cmd.kind is CommandKind.DECLINE:
        kind = state.decisions[0].kind if state.decisions else ""
        return _DECISION_OWNER.get(kind, Domain.TURN_ORDER)
    return OWNER[cmd.kind.value]
