"""Standing answers: how the server answers a seat's decisions of one kind on its own.

A seat that plays asynchronously (a person who checks in twice a day, a bot that went
offline) would stall the match every time another seat's action asks it something: may I be
ambushed, will you pay Field Hospitals, which card do you feed your Eyrie.  A standing answer
is the seat's instruction for such a decision *kind* ("ambush", "field_hospitals",
"feed_eyrie", and whatever kinds new factions add), applied by the orchestrator as soon as
such a decision opens for that seat, through the same pipeline as any command.

Why policies rather than fixed commands: the legal commands of a decision depend on the
moment (which cards are in hand, which pieces can be lost), so an answer must be a rule that
picks among them.  Every policy picks *some* legal command, falling back to the default
command, so a standing answer can never stall a match.  All of them are pure functions of
the legal list (and the public card catalogue), deterministic, and use nothing the seat
cannot see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from frontier.engine import Command, CommandKind
from frontier.engine.cards import CardKind, catalog
from frontier.engine.model import Suit

from .default_command import default_command

MAX_ANSWERS = 64
KIND_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class StandingPolicy(StrEnum):
    """Mirrors ``frontier.v1.StandingPolicy`` (value names without the prefix)."""

    DECLINE = "decline"
    ACCEPT = "accept"
    CHEAPEST_CARD = "cheapest_card"
    FIRST = "first"
    DEFAULT = "default"


class InvalidStandingAnswers(ValueError):
    """Standing answers that cannot be stored (bad kind, duplicate, too many)."""


def card_value(card_id: str) -> int:
    """How much a card is worth keeping, for "spend the cheapest card" choices.

    A simple public measure: the points it scores when crafted, +3 for an ambush card (it
    can swing a battle), +2 for a bird (wild for every suit).  Unknown ids (a card this build
    does not know) count as the most valuable, so they are never spent by preference.
    """
    card = catalog().get(card_id)
    if card is None:
        return 1_000
    value = card.vp
    if card.kind is CardKind.AMBUSH:
        value += 3
    if card.suit is Suit.BIRD:
        value += 2
    return value


def _cost(cmd: Command) -> tuple[int, str]:
    return sum(card_value(c) for c in cmd.cards), cmd.key()


def choose(policy: StandingPolicy, legal: Sequence[Command]) -> Command:
    """The command ``policy`` answers with; ``legal`` must not be empty."""
    if not legal:
        raise ValueError("a decision always has at least one legal command")
    if policy is StandingPolicy.DECLINE:
        declines = [c for c in legal if c.kind is CommandKind.DECLINE]
        return declines[0] if declines else default_command(legal)
    if policy is StandingPolicy.ACCEPT:
        accepting = [c for c in legal if c.kind is not CommandKind.DECLINE]
        return min(accepting, key=_cost) if accepting else legal[0]
    if policy is StandingPolicy.CHEAPEST_CARD:
        spending = [c for c in legal if c.cards]
        return min(spending, key=_cost) if spending else default_command(legal)
    if policy is StandingPolicy.FIRST:
        return min(legal, key=Command.key)
    return default_command(legal)


def validate(answers: Sequence[tuple[str, StandingPolicy]]) -> dict[str, StandingPolicy]:
    """Check a seat's new standing answers and return them as kind -> policy."""
    if len(answers) > MAX_ANSWERS:
        raise InvalidStandingAnswers(f"at most {MAX_ANSWERS} standing answers, got {len(answers)}")
    out: dict[str, StandingPolicy] = {}
    for kind, policy in answers:
        if not KIND_PATTERN.match(kind):
            raise InvalidStandingAnswers(
                f"decision kind {kind[:80]!r} must be lower case letters, digits and '_' "
                "(1 to 64 characters, starting with a letter)"
            )
        if kind in out:
            raise InvalidStandingAnswers(f"decision kind {kind!r} is listed twice")
        out[kind] = policy
    return out
