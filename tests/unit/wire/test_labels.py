"""Labels of legal commands: one per command kind, readable, and built from public names."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.engine import (
    Command,
    CommandKind,
    Seat,
    evolve,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.wire import command_from_proto
from frontier.wire.labels import TEMPLATES, label, legal_command_to_proto
from tests.engine_helpers import playout


def test_every_command_kind_has_a_template() -> None:
    assert set(TEMPLATES) == set(CommandKind)


def test_labels_name_clearings_cards_and_counts_for_people() -> None:
    move = Command(
        CommandKind.MARCH,
        Seat.A1,
        clearing="autumn.hill",
        to="autumn.creek",
        count=2,
        cards=("ambush_fox",),
    )
    assert label(move) == "March 2 warriors Hill → Creek, paying Ambush! (fox)"
    one = Command(CommandKind.MOVE, Seat.B2, clearing="winter.ford", to="winter.bend", count=1)
    assert label(one) == "Move 1 warrior Ford → Bend"
    craft = Command(CommandKind.CRAFT, Seat.A1, cards=("anvil",), clearings=("autumn.hill",))
    assert label(craft) == "Craft Anvil (fox) with Hill"
    slip = Command(CommandKind.SLIP, Seat.A3, to="autumn.forest.nw")
    assert label(slip) == "Slip to forest NW"
    quest = Command(CommandKind.QUEST, Seat.A3, piece="fundraising_fox", target="vp")
    assert label(quest) == "Quest Fundraising, taking vp"
    assert label(Command(CommandKind.END_PHASE, Seat.A1)) == "End this step"


def test_the_recruit_label_names_the_clearing_a_short_supply_chose() -> None:
    assert label(Command(CommandKind.RECRUIT, Seat.A1)) == "Recruit"
    one = Command(CommandKind.RECRUIT, Seat.A1, clearing="autumn.creek")
    assert label(one) == "Recruit: a warrior at Creek"


def test_R34_a_vagabond_move_label_counts_an_allied_rivals_warriors() -> None:
    along = Command(CommandKind.VAGABOND_MOVE, Seat.A3, to="autumn.hill", target="B1", count=2)
    assert label(along) == "Move to Hill, taking 2 warriors of B1 along"
    vanguard = Command(CommandKind.VAGABOND_MOVE, Seat.A3, to="autumn.hill", target="A1")
    assert label(vanguard) == "Move to Hill, taking A1 along"


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**40))
def test_every_legal_command_of_a_match_gets_a_filled_in_label(seed: int) -> None:
    state, log = playout(seed, seed, lineup=R2_DEFAULT_LINEUP, max_rounds=1)
    assert state.over
    replayed = initial_state(make_config(seed=seed, lineup=R2_DEFAULT_LINEUP, max_rounds=1))
    seen: set[CommandKind] = set()
    for _, events in log:
        seat = to_act(replayed)
        assert seat is not None
        for cmd in legal_commands(replayed, seat):
            text = label(cmd)
            assert text and "{" not in text and "_" not in text, (cmd, text)
            seen.add(cmd.kind)
        for event in events:
            evolve(replayed, event)
    assert len(seen) > 10


def test_the_wire_legal_command_carries_id_command_and_label() -> None:
    cmd = Command(CommandKind.PLACE_KEEP, Seat.A1, clearing="autumn.hill")
    msg = legal_command_to_proto(cmd)
    assert msg.id == cmd.key() and msg.label == "Place the keep in Hill"
    assert command_from_proto(msg.command) == cmd
    assert legal_command_to_proto(cmd, "given").id == "given"
