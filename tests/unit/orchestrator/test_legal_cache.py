"""The orchestrator's per-version legal command cache gives exactly the engine's lists."""

from __future__ import annotations

import copy
import dataclasses

from frontier.engine import Seat, initial_state, legal_commands, make_config, to_act
from frontier.engine.decide import execute
from frontier.engine.model import Command, CommandKind
from frontier.orchestrator.legal_cache import LegalCache
from frontier.wire.convert import command_to_proto


def test_cache_follows_the_state_version_and_equals_the_engine() -> None:
    state = initial_state(make_config(seed=5, lineup="A=marquise;B=marquise"))
    cache = LegalCache()
    for _ in range(40):
        seat = to_act(state)
        assert seat is not None
        hit = cache.of(state, seat)
        assert hit.commands == legal_commands(state, seat)
        assert cache.of(state, seat) is hit  # same version: not computed again
        assert [w.id for w in hit.wire()] == [c.key() for c in hit.commands]
        assert [w.command for w in hit.wire()] == [command_to_proto(c) for c in hit.commands]
        assert all(hit.contains(c, c.key()) and hit.by_id[c.key()] is c for c in hit.commands)
        # a command sent in full is an equal object, not the listed one: found all the same
        assert all(hit.contains(copy.copy(c), c.key()) for c in hit.commands)
        other = next(s for s in state.order if s is not seat)
        assert cache.of(state, other).commands == []
        execute(state, hit.commands[len(hit.commands) // 2])  # the version moves on


def test_contains_rejects_a_command_that_is_not_listed() -> None:
    state = initial_state(make_config(seed=5, lineup="A=marquise;B=marquise"))
    seat = to_act(state)
    assert seat is not None
    hit = LegalCache().of(state, seat)
    keep = Command(CommandKind.PLACE_KEEP, seat, clearing="no.such.clearing")
    assert not hit.contains(keep, keep.key())
    # a listed command's id with another seat (an id names every field but the seat)
    for listed in hit.commands:
        other = next(s for s in state.order if s is not seat)
        moved = dataclasses.replace(listed, seat=other)
        assert moved.key() == listed.key() and not hit.contains(moved, moved.key())


def test_a_command_listed_again_reuses_its_protobuf_across_versions_and_matches() -> None:
    """The same command with the same cost and vp, at another version or in another match,
    is the same ``LegalCommand``: built once, equal to a fresh conversion."""
    from frontier.orchestrator.legal_cache import forget_wire
    from frontier.wire.labels import legal_command_to_proto

    forget_wire()
    lists = []
    for seed in (5, 6):  # two matches of the same lineup
        state = initial_state(make_config(seed=seed, lineup="A=marquise;B=marquise"))
        cache = LegalCache()
        for _ in range(20):
            seat = to_act(state)
            assert seat is not None
            hit = cache.of(state, seat)
            fresh = [legal_command_to_proto(cmd, state=state) for cmd in hit.commands]
            lists.append((hit.commands, hit.wire(), fresh))
            execute(state, hit.commands[0])
    by_command: dict[tuple[Command, bytes, int | None], object] = {}
    for commands, wire, fresh in lists:
        for cmd, message, expected in zip(commands, wire, fresh, strict=True):
            assert message == expected
            vp = message.vp if message.HasField("vp") else None
            facts = (cmd, message.cost.SerializeToString(), vp)
            assert by_command.setdefault(facts, message) is message  # one object per command
    assert sum(len(commands) for commands, _, _ in lists) > len(by_command)  # some were reused


def test_an_id_names_one_command_of_its_seat() -> None:
    """The kept protobuf is found by seat and id, so an id must tell a seat's legal
    commands apart: over seeded playthroughs of every faction, no list holds two commands
    with one id."""
    import random

    from frontier.engine.decide import legal_commands as listed

    lineups = [
        "A=marquise;B=marquise",
        "A=marquise,eyrie,thief;B=marquise,alliance,tinker",
        "A=marquise,alliance,tinker;B=marquise,eyrie,thief",
    ]
    for n, lineup in enumerate(lineups):
        state = initial_state(make_config(seed=11 + n, lineup=lineup))
        pick = random.Random(n)
        for _ in range(150):
            seat = to_act(state)
            if seat is None:
                break
            commands = listed(state, seat)
            keys = [c.key() for c in commands]
            assert len(set(keys)) == len(keys), lineup
            assert all(c.seat is seat for c in commands)
            execute(state, pick.choice(commands))


def test_a_full_seat_forgets_its_messages_and_builds_them_again() -> None:
    from frontier.orchestrator import legal_cache

    legal_cache.forget_wire()
    state = initial_state(make_config(seed=5, lineup="A=marquise;B=marquise"))
    cmd = legal_commands(state, Seat.A1)[0]
    first = legal_cache.wire_of(state, cmd, cmd.key())
    assert legal_cache.wire_of(state, cmd, cmd.key()) is first
    for n in range(legal_cache.WIRE_KEPT):  # fill the seat's messages: they are dropped
        legal_cache.wire_of(state, cmd, f"filler {n}")
    again = legal_cache.wire_of(state, cmd, cmd.key())
    assert again is not first and again == first
    assert len(legal_cache._WIRE[Seat.A1]) <= legal_cache.WIRE_KEPT


def test_replies_merged_from_kept_bytes_are_byte_for_byte_the_built_ones() -> None:
    """ListLegalCommands' and SubmitCommand's replies take their legal list as the kept
    entries' bytes (SeatLegal.spliced): the same bytes as the reply built from the messages,
    over lists of every size (empty, one, dozens), for every lineup's factions; and ``varint``
    is protobuf's own encoding of a length."""
    import random

    from frontier.orchestrator.legal_cache import field_tag, forget_wire, varint
    from frontier.v1 import events_pb2, match_pb2, types_pb2

    assert varint(0) == b"\x00"
    for length in (1, 127, 128, 300, 16_383, 16_384, 2_000_000):
        message = types_pb2.LegalCommand(id="x" * length)
        assert varint(length) == message.SerializeToString()[1:-length]
    commands_tag = field_tag(match_pb2.ListLegalCommandsResponse.COMMANDS_FIELD_NUMBER)
    next_tag = field_tag(match_pb2.SubmitCommandResponse.NEXT_LEGAL_FIELD_NUMBER)
    forget_wire()
    sizes = set()
    for n, lineup in enumerate(
        ["A=marquise;B=marquise", "A=marquise,alliance,tinker;B=marquise,eyrie,thief"]
    ):
        state = initial_state(make_config(seed=21 + n, lineup=lineup))
        pick = random.Random(n)
        cache = LegalCache()
        for _ in range(120):
            seat = to_act(state)
            if seat is None:
                break
            for asked in state.order:  # the seat to act, and the others' empty lists
                hit = cache.of(state, asked)
                sizes.add(len(hit.commands))
                built = match_pb2.ListLegalCommandsResponse(
                    commands=hit.wire(), version=state.version
                )
                merged = match_pb2.ListLegalCommandsResponse(version=state.version)
                merged.MergeFromString(hit.listed().spliced(commands_tag))
                assert merged.SerializeToString() == built.SerializeToString()
                envelope = events_pb2.EventEnvelope(match_id="m", seq=state.version)
                reply = match_pb2.SubmitCommandResponse(
                    version=state.version, events=[envelope], to_act=types_pb2.SEAT_A1, winner=""
                )
                full = match_pb2.SubmitCommandResponse()
                full.CopyFrom(reply)
                full.next_legal.extend(hit.wire())
                reply.MergeFromString(hit.listed().spliced(next_tag))
                assert reply.SerializeToString() == full.SerializeToString()
            execute(state, pick.choice(cache.of(state, seat).commands))
    assert 0 in sizes and 1 in sizes and max(sizes) > 20


def test_a_listed_legal_list_shares_the_kept_entries() -> None:
    """What a seat's latest reply keeps for its retry (``Listed``) is references to the
    kept entries, not copies nor the ``SeatLegal`` with its commands and index."""
    from frontier.orchestrator.legal_cache import forget_wire, wire_of

    forget_wire()
    state = initial_state(make_config(seed=5, lineup="A=marquise;B=marquise"))
    seat = to_act(state)
    assert seat is not None
    hit = LegalCache().of(state, seat)
    listed = hit.listed()
    assert listed is hit.listed() and bool(listed) and not LegalCache().of(state, Seat.B1).listed()
    for cmd, key, entry in zip(hit.commands, hit.keys, listed.entries, strict=True):
        assert entry.message is wire_of(state, cmd, key)
        assert entry.entry.endswith(entry.message.SerializeToString())
