"""Battle (base Root §5 with R14): declared defender, ambush and foil, dice, effects, hits.

A battle is a chain of single decisions held in ``state.battle.stage``: the defender's ambush,
the attacker's foil, each side's optional effects, and the choice of which building or token
to lose when that choice is real.  ``run`` drives the stages until a seat must answer.
"""

from __future__ import annotations

from . import rng, vagabond_state
from .cards import (
    ARMORERS,
    BRUTAL_TACTICS,
    SAPPERS,
    SCOUTING_PARTY,
    CardKind,
    card,
    in_play,
    matches,
    one_per_type,
)
from .ctx import Ctx
from .field_hospitals import offer_field_hospitals
from .model import Command, CommandKind, EventKind, Faction, Item, Seat
from .movement import suit_of
from .pieces import BUILDINGS, TOKENS, WARRIOR, enemies_with_pieces, warriors
from .registry import rules_for
from .removal import remove
from .state import Battle, Decision, State

AMBUSH_HITS = 2


def battle_commands(
    state: State, seat: Seat, kind: CommandKind = CommandKind.BATTLE, piece: str = ""
) -> list[Command]:
    """Battles ``seat`` may start: a clearing with its warriors and one enemy seat there (R14).
    ``piece`` is the ``piece`` of every command (the Eyrie's Decree suit)."""
    out: list[Command] = []
    pawns = vagabond_state.pawn_places(state)
    for clearing, per_seat in state.pieces.items():
        mine = per_seat.get(seat)
        if not mine or mine.get(WARRIOR, 0) == 0:
            continue
        for enemy in enemies_with_pieces(state, clearing, seat, pawns):
            out.append(Command(kind, seat, clearing=clearing, target=enemy.value, piece=piece))
    return out


def start(
    ctx: Ctx, attacker: Seat, clearing: str, defender: Seat, *, looting: bool = False
) -> None:
    ctx.emit(
        EventKind.BATTLE_STARTED,
        seat=attacker.value,
        target=defender.value,
        clearing=clearing,
        piece="looting" if looting else "",  # R28: a Vagabond declares Looting with the battle
    )
    started = rules_for(ctx.state.lineup[attacker].faction).battle_started
    if started is not None and ctx.state.battle is not None:
        started(ctx, ctx.state.battle)
    run(ctx)


def _stage(ctx: Ctx, stage: str) -> None:
    ctx.emit(EventKind.BATTLE_STAGE, text=stage)


def _ambush_cards(state: State, seat: Seat, clearing: str) -> list[str]:
    suit = suit_of(state, clearing)
    return sorted(
        cid
        for cid in state.seats[seat].hand
        if card(cid).kind is CardKind.AMBUSH and matches(cid, suit)
    )


def _foil_cards(state: State, seat: Seat, clearing: str) -> list[str]:
    """A foil is the attacker's own ambush card matching the clearing of battle (birds wild),
    like the ambush itself (Law 4.3.1; root_data.json: "an ambush of the same clearing suit")."""
    return _ambush_cards(state, seat, clearing)


def effect_options(state: State, b: Battle, seat: Seat) -> list[tuple[str, str]]:
    """(effect, card id) pairs ``seat`` may still use in this battle."""
    out: list[tuple[str, str]] = []
    used = {u.split(":", 1)[1] for u in b.effects_used if u.startswith(seat.value + ":")}
    attacker = seat is b.attacker
    wanted = [BRUTAL_TACTICS, ARMORERS] if attacker else [SAPPERS, ARMORERS]
    for effect in wanted:
        if effect in used:
            continue
        cid = in_play(state, seat, effect)
        if cid is None:
            continue
        if effect == ARMORERS:
            rolled_against = b.hits_to_attacker if attacker else b.hits_to_defender
            if rolled_against == 0:
                continue
        out.append((effect, cid))
    return out


def run(ctx: Ctx) -> None:
    state = ctx.state
    while state.battle is not None and not state.decisions and not state.over:
        b = state.battle
        stage = b.stage
        if stage == "start":
            scouting = in_play(state, b.attacker, SCOUTING_PARTY) is not None
            # R4: opened whenever the defender holds a card, usable or not (DECLINE only
            # without an ambush), so that its opening reveals nothing of a hidden hand
            if not scouting and state.seats[b.defender].hand:
                _stage(ctx, "ambush")
                ctx.ask(b.defender, "ambush", clearing=b.clearing)
                return
            _stage(ctx, "roll")
        elif stage == "ambush_hits":
            _stage(ctx, "after_ambush")
            deal_hits(ctx, b.attacker, b.clearing, AMBUSH_HITS, b.defender)
        elif stage == "after_ambush":
            _stage(ctx, "roll" if fights_on(state, b.clearing, b.attacker) else "aftermath")
        elif stage == "roll":
            _roll(ctx, b)
            _stage(ctx, "reroll" if _may_reroll(state, b) else "effects_attacker")
        elif stage == "reroll":  # War Veteran (R29): the Vagabond may reroll its die
            ctx.ask(b.attacker, vagabond_state.REROLL_DECISION, clearing=b.clearing)
            return
        elif stage in ("effects_attacker", "effects_defender"):
            seat = b.attacker if stage == "effects_attacker" else b.defender
            if effect_options(state, b, seat):
                ctx.ask(seat, "battle_effects", clearing=b.clearing)
                return
            _next_effects_stage(ctx, stage)
        elif stage == "intervention":  # R15: the defender's team Vagabond may help
            offer = vagabond_state.intervention_options(state, b)
            if offer is not None:
                ctx.ask(offer[0], vagabond_state.INTERVENTION, clearing=b.clearing)
                return
            _stage(ctx, "deal_defender")
        elif stage == "deal_defender":
            _stage(ctx, "deal_attacker")
            rolled = 0 if b.ignore_rolled_by_defender else b.hits_to_defender
            deal_hits(ctx, b.defender, b.clearing, rolled + b.extra_to_defender, b.attacker)
        elif stage == "deal_attacker":
            _stage(ctx, "loot" if b.looting else "aftermath")
            rolled = 0 if b.ignore_rolled_by_attacker else b.hits_to_attacker
            deal_hits(ctx, b.attacker, b.clearing, rolled + b.extra_to_attacker, b.defender)
        elif stage == "loot":  # R28
            _stage(ctx, "aftermath")
            loot = rules_for(state.lineup[b.attacker].faction).loot
            if loot is not None:
                loot(ctx, b)
        elif stage == "aftermath":
            _stage(ctx, "end")
            totals: dict[str, int] = {}
            for owner, n in b.removed_warriors:
                totals[owner] = totals.get(owner, 0) + n
            for owner, n in totals.items():
                offer_field_hospitals(ctx, Seat(owner), b.clearing, n, in_battle=True)
        elif stage == "end":
            ctx.emit(EventKind.BATTLE_ENDED, clearing=b.clearing)
        else:  # pragma: no cover - stages are a closed set
            raise RuntimeError(f"unknown battle stage {stage}")


def _next_effects_stage(ctx: Ctx, stage: str) -> None:
    _stage(ctx, "effects_defender" if stage == "effects_attacker" else "intervention")


def _roll(ctx: Ctx, b: Battle) -> None:
    state = ctx.state
    dice, _ = rng.roll_dice(state.rng)
    ctx.emit(EventKind.DICE_ROLLED, values=dice, clearing=b.clearing)
    set_hits(ctx, b)


def set_hits(ctx: Ctx, b: Battle) -> None:
    """The rolled hits of ``b.dice`` (kept in roll order, so a reroll replaces one die)."""
    state = ctx.state
    high, low = b.dice
    if defender_deals_high(state, b):
        high, low = low, high
    to_defender = min(high, rolled_cap(state, b.clearing, b.attacker))
    to_attacker = min(low, rolled_cap(state, b.clearing, b.defender))
    extra_to_defender = 1 if defenseless(state, b.clearing, b.defender) else 0
    extra_to_defender += _leader_extra_hits(state, b.attacker)
    ctx.emit(EventKind.HITS_SET, values=(to_defender, to_attacker, extra_to_defender, 0))


def defender_deals_high(state: State, b: Battle) -> bool:
    """Guerrilla War: a defending Woodland Alliance deals the higher die (§5, §11).
    Looting (R28): the defender deals the higher die, the Vagabond the lower."""
    return state.lineup[b.defender].faction is Faction.ALLIANCE or b.looting


# A Vagabond fights with its pawn and items, not warriors (base Root §12.3).


def rolled_cap(state: State, clearing: str, seat: Seat) -> int:
    """Most rolled hits ``seat`` deals: its warriors there, or a Vagabond's undamaged swords."""
    vs = vagabond_state.vagabond(state, seat)
    if vs is not None:
        return vagabond_state.undamaged(vs, Item.SWORD)
    return warriors(state, clearing, seat)


def defenseless(state: State, clearing: str, seat: Seat) -> bool:
    """No warriors there; a Vagabond is defenseless without an undamaged sword."""
    return rolled_cap(state, clearing, seat) == 0


def fights_on(state: State, clearing: str, seat: Seat) -> bool:
    """An attacker goes on to the roll while it has warriors; a Vagabond pawn always does."""
    return vagabond_state.vagabond(state, seat) is not None or warriors(state, clearing, seat) > 0


def _may_reroll(state: State, b: Battle) -> bool:
    vs = vagabond_state.vagabond(state, b.attacker)
    return b.looting and vs is not None and vs.legendary == vagabond_state.WAR_VETERAN


def _leader_extra_hits(state: State, attacker: Seat) -> int:
    """A faction's bonus as attacker (the Eyrie's Commander: +1 hit, base Root §10)."""
    hook = rules_for(state.lineup[attacker].faction).attacker_extra_hits
    return hook(state, attacker) if hook is not None else 0


def _building_removed(ctx: Ctx, remover: Seat) -> None:
    """After an enemy building or token is removed in a battle: the remover's faction hook
    (the Eyrie's Despot: +1 VP once per battle)."""
    hook = rules_for(ctx.state.lineup[remover].faction).building_removed
    if hook is not None and ctx.state.battle is not None:
        hook(ctx, ctx.state.battle, remover)


def deal_hits(ctx: Ctx, victim: Seat, clearing: str, hits: int, remover: Seat) -> None:
    """Remove ``hits`` pieces of ``victim``: warriors first, then buildings/tokens.

    When the hits remove all of the victim's buildings and tokens, nobody is asked and the
    buildings go first; when only some can go and of more than one kind, the victim chooses
    (REMOVE_PIECE, one piece at a time, base Root).
    """
    state = ctx.state
    w = warriors(state, clearing, victim)
    if hits <= 0:
        return
    take_hits = rules_for(state.lineup[victim].faction).take_hits
    if take_hits is not None:  # e.g. a Vagabond's hits damage its items
        take_hits(ctx, victim, hits, remover)
        return
    if w:
        k = min(w, hits)
        remove(ctx, victim, clearing, WARRIOR, k, remover, "battle")
        hits -= k
    _continue_hits(ctx, victim, clearing, hits, remover)


def _others(state: State, clearing: str, victim: Seat) -> dict[str, int]:
    kinds = state.pieces[clearing].get(victim, {})
    return {k: n for k, n in kinds.items() if n > 0 and (k in BUILDINGS or k in TOKENS)}


def _removal_order(kind: str) -> tuple[bool, str]:
    """Buildings first, then tokens; by name within each (their effects do not interact)."""
    return (kind not in BUILDINGS, kind)


def _continue_hits(ctx: Ctx, victim: Seat, clearing: str, hits: int, remover: Seat) -> None:
    state = ctx.state
    others = _others(state, clearing, victim)
    if hits <= 0 or not others:
        return
    if len(others) == 1 or hits >= sum(others.values()):
        # Nobody is asked: buildings go before tokens, so their effects (the Alliance's base
        # loss, then Outrage for its sympathy) follow that order ("Decided by the engine").
        for kind in sorted(others, key=_removal_order):
            k = min(others[kind], hits)
            remove(ctx, victim, clearing, kind, k, remover, "battle")
            _building_removed(ctx, remover)
            hits -= k
            if hits == 0:
                break
        return
    ctx.ask(victim, "allocate_hits", clearing=clearing, count=hits, target=remover.value)


# ----- decisions ---------------------------------------------------------------------------


def decision_commands(state: State, d: Decision) -> list[Command]:
    b = state.battle
    seat = d.seat
    if d.kind == "allocate_hits":
        return [
            Command(CommandKind.REMOVE_PIECE, seat, clearing=d.clearing, piece=kind)
            for kind in sorted(_others(state, d.clearing, seat))
        ]
    assert b is not None
    if d.kind == "ambush":
        cards = _ambush_cards(state, seat, b.clearing)
        out = [Command(CommandKind.AMBUSH, seat, cards=(c,)) for c in one_per_type(cards)]
    elif d.kind == "foil":
        cards = _foil_cards(state, seat, b.clearing)
        out = [Command(CommandKind.FOIL, seat, cards=(c,)) for c in one_per_type(cards)]
    elif d.kind == "battle_effects":
        out = [
            Command(CommandKind.USE_EFFECT, seat, piece=effect, cards=(cid,))
            for effect, cid in effect_options(state, b, seat)
        ]
    else:
        return []
    out.append(Command(CommandKind.DECLINE, seat))
    return out


def answer(ctx: Ctx, cmd: Command, d: Decision) -> None:
    """Apply a seat's answer to an open battle decision, then drive the battle on."""
    state = ctx.state
    ctx.close_decision()
    if d.kind == "allocate_hits":
        remover = Seat(d.target)
        remove(ctx, cmd.seat, d.clearing, cmd.piece, 1, remover, "battle")
        _building_removed(ctx, remover)
        _continue_hits(ctx, cmd.seat, d.clearing, d.count - 1, remover)
        run(ctx)
        return
    b = state.battle
    assert b is not None
    if d.kind == "ambush":
        if cmd.kind is CommandKind.AMBUSH:
            ctx.emit(EventKind.AMBUSH_PLAYED, seat=cmd.seat.value, cards=cmd.cards)
            if state.seats[b.attacker].hand:  # R4: any card, as for the ambush
                _stage(ctx, "foil")
                ctx.ask(b.attacker, "foil", clearing=b.clearing)
            else:
                _stage(ctx, "ambush_hits")
        else:
            ctx.emit(EventKind.DECISION_DECLINED, seat=cmd.seat.value, text="ambush")
            _stage(ctx, "roll")
    elif d.kind == "foil":
        if cmd.kind is CommandKind.FOIL:
            ctx.emit(EventKind.AMBUSH_FOILED, seat=cmd.seat.value, cards=cmd.cards)
            _stage(ctx, "roll")
        else:
            ctx.emit(EventKind.DECISION_DECLINED, seat=cmd.seat.value, text="foil")
            _stage(ctx, "ambush_hits")
    elif d.kind == "battle_effects":
        if cmd.kind is CommandKind.USE_EFFECT:
            discard = () if cmd.piece == BRUTAL_TACTICS else cmd.cards
            ctx.emit(EventKind.EFFECT_USED, seat=cmd.seat.value, piece=cmd.piece, cards=discard)
            if cmd.piece == BRUTAL_TACTICS:
                ctx.score(b.defender, 1, "brutal tactics")
        else:
            ctx.emit(EventKind.DECISION_DECLINED, seat=cmd.seat.value, text="battle_effects")
            _next_effects_stage(ctx, b.stage)
    run(ctx)
