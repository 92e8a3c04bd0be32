"""The orchestrator's per-version legal command cache gives exactly the engine's lists."""

from __future__ import annotations

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
        assert all(hit.contains(c) and hit.by_id[c.key()] == c for c in hit.commands)
        other = next(s for s in state.order if s is not seat)
        assert cache.of(state, other).commands == []
        execute(state, hit.commands[len(hit.commands) // 2])  # the version moves on


def test_contains_rejects_a_command_that_is_not_listed() -> None:
    state = initial_state(make_config(seed=5, lineup="A=marquise;B=marquise"))
    seat = to_act(state)
    assert seat is not None
    hit = LegalCache().of(state, seat)
    assert not hit.contains(Command(CommandKind.PLACE_KEEP, seat, clearing="no.such.clearing"))
    assert not hit.contains(Command(CommandKind.END_PHASE, Seat.B1))


def test_a_command_listed_again_reuses_its_protobuf_across_versions_and_matches() -> None:
    """The same command at another version, or in another match, is the same
    ``LegalCommand``: built once (wire_of), equal to a fresh conversion."""
    from frontier.orchestrator.legal_cache import wire_of
    from frontier.wire.labels import legal_command_to_proto

    wire_of.cache_clear()
    lists = []
    for seed in (5, 6):  # two matches of the same lineup
        state = initial_state(make_config(seed=seed, lineup="A=marquise;B=marquise"))
        cache = LegalCache()
        for _ in range(20):
            seat = to_act(state)
            assert seat is not None
            hit = cache.of(state, seat)
            lists.append((hit.commands, hit.wire()))
            execute(state, hit.commands[0])
    by_command: dict[Command, object] = {}
    for commands, wire in lists:
        for cmd, message in zip(commands, wire, strict=True):
            assert message == legal_command_to_proto(cmd)
            assert by_command.setdefault(cmd, message) is message  # one object per command
    assert wire_of.cache_info().hits > 0
