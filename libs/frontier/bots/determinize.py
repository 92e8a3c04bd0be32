"""Rebuild an engine :class:`State` from one seat's view, guessing what the seat cannot see.

The search bot plays on the pure engine, but it may not read the true hidden state: other
seats' hands, other Alliances' face-down supporters, the deck order, which ruin holds which
item, the quest deck's order and the generator.  So it works on *determinizations*: states
rebuilt from ``view(state, seat)`` (the same JSON a remote bot receives) plus a sample of
the hidden parts that agrees with everything the view shows:

* the unseen cards are the whole deck minus every card the view shows (hands the seat may
  see, the discard pile, play areas, the Eyrie's Decree, supporters it may see); they are
  dealt to the hidden hands (their public sizes; a card the seat was shown in that hand,
  Codebreakers, is dealt there first while it is still unseen), then to the hidden
  supporters, and the rest, shuffled, is the deck;
* the ruins get the public pool of unexplored items (``ruin_pool``), shuffled, by their
  public counts; the quest deck is every quest not face up or completed, shuffled;
* the generator gets a fresh seed from the bot's own sample seed.

Why from the view and not from the state with the secrets overwritten: a state rebuilt from
the view cannot carry a secret by construction, so in-process and remote play are the same
code and the secrecy test has nothing to trust.  :class:`ViewModel` parses a view once;
:meth:`ViewModel.sample` then costs a shuffle and a state build.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from frontier.engine import rng
from frontier.engine.cards import deck_ids
from frontier.engine.factions.eyrie_board import VIZIERS, EyrieState
from frontier.engine.model import Character, Faction, Item, Seat, Team
from frontier.engine.state import (
    Battle,
    Carried,
    Decision,
    DroppedItem,
    FactionState,
    Options,
    SeatSpec,
    SeatState,
    State,
)
from frontier.engine.sympathy import AllianceState
from frontier.engine.vagabond_state import VagabondState, VItem, quests


class ViewMismatch(ValueError):
    """A view the rebuild cannot agree with (missing keys, or counts that do not add up)."""


@dataclass(frozen=True, slots=True)
class _Hidden:
    """What must be sampled: who holds how many unseen cards, and the pools to deal from."""

    pool: tuple[str, ...]  # every unseen card, in a canonical order
    hands: tuple[tuple[Seat, int, tuple[str, ...]], ...]  # seat, hand size, known cards
    supporters: tuple[tuple[Seat, int], ...]  # Alliances whose supporters are hidden
    deck_count: int
    ruins: tuple[tuple[str, int], ...]  # clearing, items in it
    ruin_pool: tuple[Item, ...]
    quest_pool: tuple[str, ...]


def _seat_state(entry: Mapping[str, Any], hand: list[str]) -> SeatState:
    faction = Faction(entry["faction"])
    character = Character(entry["character"]) if entry["character"] else None
    return SeatState(
        seat=Seat(entry["seat"]),
        faction=faction,
        character=character,
        hand=hand,
        play_area=list(entry["play_area"]),
        crafted_items=[Item(i) for i in entry["crafted_items"]],
        vp=int(entry["vp"]),
        supply={k: int(n) for k, n in entry["supply"].items()},
        extra=None,
    )


def _extra(entry: Mapping[str, Any], supporters: list[str]) -> FactionState | None:
    """The faction board from its public view (plus the supporters, seen or sampled)."""
    faction = Faction(entry["faction"])
    fs = entry["faction_state"]
    if faction is Faction.EYRIE:
        return EyrieState(
            fs["leader"],
            list(fs["candidates"]),
            list(fs["deposed"]),
            {c: list(cards) for c, cards in fs["decree"].items()},
        )
    if faction is Faction.ALLIANCE:
        return AllianceState(supporters, int(fs["officers"]))
    if faction is Faction.VAGABOND:
        return VagabondState(
            Character(fs["character"]),
            [
                VItem(Item(i["item"]), i["exhausted"], i["damaged"], i["contraband"], i["crafter"])
                for i in fs["items"]
            ],
            fs["location"],
            dict(fs["relationships"]),
            int(fs["ruins_explored"]),
            list(fs["quests_completed"]),
            fs["legendary"],
        )
    return None


def _contraband(raw: Mapping[str, str]) -> DroppedItem:
    return DroppedItem(Item(raw["item"]), Team(raw["team"]), Seat(raw["crafter"]))


def _battle(raw: Mapping[str, Any] | None) -> Battle | None:
    if raw is None:
        return None
    b = Battle(Seat(raw["attacker"]), Seat(raw["defender"]), raw["clearing"])
    b.stage = raw["stage"]
    b.ambush = raw["ambush"]
    b.dice = (int(raw["dice"][0]), int(raw["dice"][1]))
    b.hits_to_defender = int(raw["hits_to_defender"])
    b.hits_to_attacker = int(raw["hits_to_attacker"])
    b.extra_to_defender = int(raw["extra_to_defender"])
    b.extra_to_attacker = int(raw["extra_to_attacker"])
    b.ignore_rolled_by_attacker = bool(raw["ignore_rolled_by_attacker"])
    b.ignore_rolled_by_defender = bool(raw["ignore_rolled_by_defender"])
    b.effects_used = tuple(raw["effects_used"])
    b.removed_warriors = tuple((str(s), int(n)) for s, n in raw["removed_warriors"])
    b.looting = bool(raw["looting"])
    return b


def _decision(raw: Mapping[str, Any]) -> Decision:
    return Decision(
        Seat(raw["seat"]),
        raw["kind"],
        raw["clearing"],
        raw["target"],
        int(raw["count"]),
        raw["piece"],
        tuple(raw["cards"]),
    )


class ViewModel:
    """One seat's view, parsed once; :meth:`sample` deals a fresh determinization."""

    __slots__ = ("_hidden", "_view", "viewer")

    def __init__(self, data: Mapping[str, Any]) -> None:
        try:
            self.viewer = Seat(data["viewer"])
            self._view = data
            self._hidden = self._find_hidden(data)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ViewMismatch):
                raise
            raise ViewMismatch(f"not a seat's view the search can rebuild: {exc!r}") from None

    @staticmethod
    def _find_hidden(data: Mapping[str, Any]) -> _Hidden:
        seen: Counter[str] = Counter(data["discard"])
        hands: list[tuple[Seat, int, tuple[str, ...]]] = []
        supporters: list[tuple[Seat, int]] = []
        visible_hands: Mapping[str, list[str]] = data["hands"]
        private: Mapping[str, Mapping[str, Any]] = data["private"]
        known: Mapping[str, list[str]] = data["known_hands"]
        for entry in data["seats"]:
            seat = entry["seat"]
            seen.update(entry["play_area"])
            if seat in visible_hands:
                seen.update(visible_hands[seat])
            else:
                hands.append((Seat(seat), int(entry["hand_count"]), tuple(known.get(seat, ()))))
            fs = entry["faction_state"]
            if entry["faction"] == Faction.EYRIE.value:
                for cards in fs["decree"].values():
                    seen.update(c for c in cards if c not in VIZIERS)
            elif entry["faction"] == Faction.ALLIANCE.value:
                if seat in private and "supporters" in private[seat]:
                    seen.update(private[seat]["supporters"])
                else:
                    supporters.append((Seat(seat), int(fs["supporters"])))
        unseen = Counter(deck_ids())
        unseen.subtract(seen)
        if any(n < 0 for n in unseen.values()):
            extra = sorted(c for c, n in unseen.items() if n < 0)
            raise ViewMismatch(f"the view shows cards the deck does not hold: {extra}")
        pool = tuple(sorted(unseen.elements()))
        wanted = (
            sum(n for _, n, _ in hands) + sum(n for _, n in supporters) + int(data["deck_count"])
        )
        if wanted != len(pool):
            raise ViewMismatch(
                f"{len(pool)} unseen cards but {wanted} hidden places (hands, supporters, deck)"
            )
        ruins = tuple((c["id"], int(c["ruin_items"])) for c in data["clearings"] if c["ruin_items"])
        ruin_pool = tuple(Item(i) for i in data["ruin_pool"])
        if sum(n for _, n in ruins) != len(ruin_pool):
            raise ViewMismatch("the ruins' item counts do not match the unexplored item pool")
        done = {q for e in data["seats"] for q in e["faction_state"].get("quests_completed", ())}
        quest_pool = tuple(q for q in quests() if q not in done and q not in data["quests"])
        if len(quest_pool) != int(data["quest_deck_count"]) and (
            data["quests"] or data["quest_deck_count"]
        ):
            raise ViewMismatch("the quest deck's size does not match the unseen quests")
        if not data["quests"] and not data["quest_deck_count"]:
            quest_pool = ()  # no Vagabond at the table: no quest deck at all
        return _Hidden(
            pool,
            tuple(hands),
            tuple(supporters),
            int(data["deck_count"]),
            ruins,
            ruin_pool,
            quest_pool,
        )

    def sample(self, seed: int) -> State:
        """A state that agrees with the view, its hidden parts dealt from ``seed``."""
        data, hidden = self._view, self._hidden
        gen = rng.seed_state(seed)
        pool, gen = rng.shuffled(hidden.pool, gen)
        hands: dict[str, list[str]] = {s: list(c) for s, c in data["hands"].items()}
        for seat, size, known in hidden.hands:
            hand = [c for c in known if c in pool][:size]
            for c in hand:
                pool.remove(c)
            while len(hand) < size:
                hand.append(pool.pop())
            hands[seat.value] = hand
        supporters: dict[str, list[str]] = {
            s: list(p["supporters"]) for s, p in data["private"].items() if "supporters" in p
        }
        for seat, size in hidden.supporters:
            supporters[seat.value] = [pool.pop() for _ in range(size)]
        deck = pool  # what is left, already shuffled: the top is the end of the list
        ruin_items, gen = rng.shuffled(hidden.ruin_pool, gen)
        ruins: dict[str, list[Item]] = {}
        for clearing, n in hidden.ruins:
            ruins[clearing] = [ruin_items.pop() for _ in range(n)]
        quest_deck, gen = rng.shuffled(hidden.quest_pool, gen)
        state_rng, gen = rng.next_u64(gen)
        return self._build(hands, supporters, deck, ruins, quest_deck, state_rng)

    def _build(
        self,
        hands: dict[str, list[str]],
        supporters: dict[str, list[str]],
        deck: list[str],
        ruins: dict[str, list[Item]],
        quest_deck: list[str],
        state_rng: int,
    ) -> State:
        data = self._view
        seats: dict[Seat, SeatState] = {}
        lineup: dict[Seat, SeatSpec] = {}
        for entry in data["seats"]:
            st = _seat_state(entry, hands[entry["seat"]])
            st.extra = _extra(entry, supporters.get(entry["seat"], []))
            seats[st.seat] = st
            lineup[st.seat] = SeatSpec(st.faction, st.character)
        carried: Carried = {
            c: {Seat(s): [_contraband(d) for d in items] for s, items in per_seat.items()}
            for c, per_seat in data["carried"].items()
        }
        options = data["options"]
        return State(
            lineup=lineup,
            options=Options(
                bool(options["team_hands_visible"]),
                int(options["max_rounds"]),
                int(options["winning_score"]),
            ),
            order=tuple(seats),
            rng=state_rng,
            suits={c["id"]: c["suit"] for c in data["clearings"]},
            seats=seats,
            pieces={
                c["id"]: {
                    Seat(s): {k: int(n) for k, n in kinds.items()}
                    for s, kinds in c["pieces"].items()
                }
                for c in data["clearings"]
            },
            deck=deck,
            discard=list(data["discard"]),
            stock={
                m: {Item(i): int(n) for i, n in items.items()} for m, items in data["stock"].items()
            },
            ruins=ruins,
            scores={Team(t): int(n) for t, n in data["scores"].items()},
            round=int(data["round"]),
            turn_seat=Seat(data["turn_seat"]) if data["turn_seat"] else None,
            step=data["step"],
            actions=int(data["actions"]),
            march_left=int(data["march_left"]),
            used={k: int(n) for k, n in data["used"].items()},
            decisions=[_decision(d) for d in data["decisions"]],
            battle=_battle(data["battle"]),
            known_hands={self.viewer: {Seat(s): tuple(c) for s, c in data["known_hands"].items()}}
            if data["known_hands"]
            else {},
            dropped={c: [_contraband(d) for d in items] for c, items in data["dropped"].items()},
            carried=carried,
            crate=[Item(i) for i in data["crate"]],
            quests=list(data["quests"]),
            quest_deck=quest_deck,
            winner=data["winner"],
            end_reason=data["end_reason"],
            version=int(data["version"]),
        )
