"""The variant's Vagabond rulings: R15 intervention, R20 torch pick-up, R27 hostility,
R28 Looting, R29 Legendary Abilities and R34 Infamy (and R23 / Revolt as they touch it)."""

from __future__ import annotations

from frontier.engine import Command, CommandKind, Event, EventKind, Seat, State, Team, rng
from frontier.engine.ctx import Ctx
from frontier.engine.factions.vagabond import RULES
from frontier.engine.model import Item
from frontier.engine.state import DroppedItem
from frontier.engine.vagabond_state import LEGENDARY_ABILITIES, vstate
from frontier.engine.view import view
from tests.engine_helpers import (
    CARD_OF,
    dice_seed,
    first_legal,
    kinds_of,
    legal_of,
    play,
    setup_seat,
)
from tests.vagabond_helpers import (
    A1,
    A3,
    B1,
    B3,
    CREEK,
    HILL,
    KEEP_A,
    KEEP_B,
    MOUND,
    PAWN_A,
    QUARRY,
    fresh,
    item_keys,
    vb_position,
)

HOSTILE_B1 = {"A1": "allied", "B1": "hostile", "B3": "indifferent"}


def attack(state: State, target: Seat = B1, *, looting: bool = False) -> list[Event]:
    piece = "looting" if looting else ""
    return play(
        state, Command(CommandKind.BATTLE, A3, clearing=CREEK, target=target.value, piece=piece)
    )


def hits_set(events: list[Event]) -> tuple[int, ...]:
    return next(e for e in events if e.kind is EventKind.HITS_SET).values


def rng_for_die(value: int) -> int:
    """A generator state whose next single die (0-3) is ``value``."""
    return next(r for r in range(10_000) if rng.below(r, 4)[0] == value)


# ----- R27 hostility, R34 Infamy ------------------------------------------------------------


def test_R27_attacking_a_rival_makes_it_hostile_and_that_battle_scores_no_infamy() -> None:
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 3}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword", "sword", "boots"]}},
    )
    state.rng = dice_seed(2, 0)
    events = attack(state)
    assert state.pieces[CREEK][B1]["warrior"] == 1
    changed = [e for e in events if e.kind is EventKind.RELATIONSHIP_CHANGED]
    assert [(e.target, e.text) for e in changed] == [("B1", "hostile")]
    assert kinds_of(events).index("relationship_changed") < kinds_of(events).index("dice_rolled")
    # the pieces removed in the battle that made B1 Hostile score no Infamy (R27)
    assert state.scores[Team.A] == 0
    assert vstate(state, A3).relations["B1"] == "hostile"
    state.rng = dice_seed(2, 0)  # a second battle against the now Hostile rival: Infamy
    play(state, Command(CommandKind.BATTLE, A3, clearing=CREEK, target="B1"))
    assert state.scores[Team.A] == 1


def test_R27_an_attack_that_removes_no_warrior_still_makes_the_rival_hostile() -> None:
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 3}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword", "boots"]}},
    )
    state.rng = dice_seed(0, 0)
    attack(state)
    assert state.pieces[CREEK][B1]["warrior"] == 3  # no hit
    assert vstate(state, A3).relations["B1"] == "hostile"


def test_R34_infamy_scores_each_hostile_piece_removed_in_battle_on_own_turn() -> None:
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 2, "sawmill": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword"] * 3, "relations": HOSTILE_B1}},
    )
    state.rng = dice_seed(3, 0)
    attack(state)
    assert state.pieces[CREEK][B1] == {"warrior": 0, "sawmill": 0}
    assert state.scores[Team.A] == 3 + 1  # 3 Infamy, +1 for the building as always


def test_R34_infamy_only_on_own_turn() -> None:
    state = vb_position(
        turn=B1,
        pieces={CREEK: {B1: {"warrior": 3}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword", "sword"], "relations": HOSTILE_B1}},
    )
    state.actions = 3
    state.rng = dice_seed(3, 2)
    play(state, Command(CommandKind.BATTLE, B1, clearing=CREEK, target="A3"))
    assert state.pieces[CREEK][B1]["warrior"] == 1  # the defending Vagabond removed 2
    assert state.scores[Team.A] == 0  # no Infamy on B1's turn
    # ...but removing warriors as a defender still makes an Indifferent rival Hostile
    state = vb_position(
        turn=B1,
        pieces={CREEK: {B1: {"warrior": 3}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword", "sword", "boots"]}},
    )
    state.actions = 3
    state.rng = dice_seed(1, 1)
    play(state, Command(CommandKind.BATTLE, B1, clearing=CREEK, target="A3"))
    if state.decisions:
        play(state, legal_of(state, CommandKind.DAMAGE_ITEM, A3)[0])
    assert vstate(state, A3).relations["B1"] == "hostile"
    assert state.scores[Team.A] == 0


# ----- R28 Looting --------------------------------------------------------------------------


def _looting(
    crafted: list[Item],
    dice: tuple[int, int],
    items: list[str] | None = None,
    defender: dict[str, int] | None = None,
) -> State:
    state = vb_position(
        pieces={CREEK: {B1: defender or {"warrior": 3}}},
        vagabonds={A3: {"location": CREEK, "items": items or ["sword", "sword", "boots"]}},
    )
    state.seats[B1].crafted_items = list(crafted)
    state.rng = dice_seed(*dice)
    return state


def test_R28_looting_defender_deals_the_higher_die_and_a_hit_takes_a_crafted_item() -> None:
    state = _looting([Item.CROSSBOW], (3, 1))
    assert Command(CommandKind.BATTLE, A3, clearing=CREEK, target="B1", piece="looting") in (
        legal_of(state, CommandKind.BATTLE)
    )
    events = attack(state, looting=True)
    assert hits_set(events) == (1, 3, 0, 0)  # A3 deals the low die, B1 the high one
    assert state.seats[B1].crafted_items == []
    assert "crossbow" in item_keys(state, A3)  # face up: usable at once
    assert legal_of(state, CommandKind.STRIKE)  # ...for a strike this very turn


def test_R28_looting_without_a_hit_takes_nothing() -> None:
    state = _looting([Item.BAG], (3, 0))
    attack(state, looting=True)
    assert state.seats[B1].crafted_items == [Item.BAG]
    assert "bag" not in item_keys(state, A3)


def test_R28_looting_lets_the_vagabond_choose_among_crafted_items() -> None:
    state = _looting([Item.BAG, Item.COINS], (2, 2), defender={"sawmill": 1})
    attack(state, looting=True)
    options = legal_of(state, CommandKind.TAKE_ITEM, A3)
    assert {c.piece for c in options} == {"bag", "coins"}
    assert not legal_of(state, CommandKind.DECLINE, A3)  # a successful Looting takes one
    play(state, Command(CommandKind.TAKE_ITEM, A3, piece="coins", target="B1"))
    assert state.seats[B1].crafted_items == [Item.BAG]


def test_R28_looting_at_most_once_per_turn() -> None:
    state = _looting([Item.BAG, Item.BAG], (3, 0), defender={"sawmill": 2})
    attack(state, looting=True)  # 0 rolled, +1 defenseless: a hit, a bag taken
    assert state.seats[B1].crafted_items == [Item.BAG]
    battles = legal_of(state, CommandKind.BATTLE)
    assert battles and all(c.piece != "looting" for c in battles)
    state.used = {}  # the next turn
    assert any(c.piece == "looting" for c in legal_of(state, CommandKind.BATTLE))


def test_R28_looting_needs_a_defender_with_crafted_items() -> None:
    state = _looting([], (3, 3))
    assert all(c.piece != "looting" for c in legal_of(state, CommandKind.BATTLE))


# ----- R29 Legendary Abilities --------------------------------------------------------------


def _quest_ready(state: State, seat: Seat, location: str) -> None:
    """Face up: Guard Duty (rabbit); ``seat`` holds torch + sword and has done 2 quests."""
    done = ["errand_fox", "escort_mouse"]
    rest = [q for q in [*state.quest_deck, *state.quests] if q not in (*done, "guard_duty_rabbit")]
    state.quests = ["guard_duty_rabbit", *rest[:2]]
    state.quest_deck = rest[2:]
    vs = vstate(state, seat)
    vs.location = location
    vs.quests_done = list(done)


def test_R29_first_vagabond_with_3_ruins_and_3_quests_picks_a_legendary_ability() -> None:
    state = vb_position(vagabonds={A3: {"items": ["torch", "sword", "boots"], "explored": 3}})
    _quest_ready(state, A3, CREEK)
    play(state, Command(CommandKind.QUEST, A3, piece="guard_duty_rabbit", target="vp"))
    options = {c.piece for c in legal_of(state, CommandKind.CHOOSE_LEGENDARY, A3)}
    assert options == set(LEGENDARY_ABILITIES)
    play(state, Command(CommandKind.CHOOSE_LEGENDARY, A3, piece="forest_ghost"))
    assert vstate(state, A3).legendary == "forest_ghost"


def test_R29_legendary_needs_both_goals() -> None:
    state = vb_position(vagabonds={A3: {"items": ["torch", "sword", "boots"], "explored": 2}})
    _quest_ready(state, A3, CREEK)
    play(state, Command(CommandKind.QUEST, A3, piece="guard_duty_rabbit", target="vp"))
    assert not state.decisions
    assert vstate(state, A3).legendary == ""


def test_R29_no_other_vagabond_gets_a_legendary_ability() -> None:
    state = vb_position(
        turn=B3,
        vagabonds={
            A3: {"legendary": "war_veteran"},
            B3: {"items": ["torch", "sword", "boots"], "explored": 4},
        },
    )
    _quest_ready(state, B3, CREEK)
    play(state, Command(CommandKind.QUEST, B3, piece="guard_duty_rabbit", target="vp"))
    assert not legal_of(state, CommandKind.CHOOSE_LEGENDARY, B3)
    assert vstate(state, B3).legendary == ""


def test_R29_vanguard_leader_moves_one_allied_warrior_along_ignoring_rule() -> None:
    pieces = {CREEK: {A1: {"warrior": 2}, B1: {"warrior": 3}}, HILL: {B1: {"warrior": 3}}}
    plain = vb_position(pieces=pieces, vagabonds={A3: {"location": CREEK, "items": ["boots"]}})
    assert all(c.target == "" for c in legal_of(plain, CommandKind.VAGABOND_MOVE))  # R27
    state = vb_position(
        pieces=pieces,
        vagabonds={A3: {"location": CREEK, "items": ["boots"], "legendary": "vanguard_leader"}},
    )
    move = Command(CommandKind.VAGABOND_MOVE, A3, to=HILL, target="A1")
    assert move in legal_of(state, CommandKind.VAGABOND_MOVE)  # B rules both clearings
    play(state, move)
    assert state.pieces[CREEK][A1]["warrior"] == 1
    assert state.pieces[HILL][A1]["warrior"] == 1
    assert vstate(state, A3).location == HILL


def test_R29_master_craftsman_ignores_one_suit_requirement_once_per_turn() -> None:
    hand = ["anvil", "crossbow_mouse"]  # each costs one fox; Creek is a rabbit clearing
    plain = vb_position(
        hands={A3: hand}, vagabonds={A3: {"location": CREEK, "items": ["hammer"] * 2}}
    )
    assert legal_of(plain, CommandKind.CRAFT) == []
    state = vb_position(
        hands={A3: hand},
        vagabonds={
            A3: {
                "location": CREEK,
                "items": ["hammer", "hammer", "boots"],
                "legendary": "master_craftsman",
            }
        },
    )
    crafts = legal_of(state, CommandKind.CRAFT)
    assert {c.cards for c in crafts} == {("anvil",), ("crossbow_mouse",)}
    assert all(c.piece == "master_craftsman" for c in crafts)
    play(state, first_legal(state, CommandKind.CRAFT, cards=("anvil",)))
    assert "hammer" in item_keys(state, A3)  # the crafted Anvil's hammer, face up
    assert legal_of(state, CommandKind.CRAFT) == []  # once per turn


def test_R29_forest_ghost_pays_no_bridge_fees() -> None:
    state = vb_position(
        hands={A3: [CARD_OF["fox"]]},
        vagabonds={
            A3: {"location": QUARRY, "items": ["boots", "boots"], "legendary": "forest_ghost"}
        },
    )
    moves = [c for c in legal_of(state, CommandKind.VAGABOND_MOVE) if c.to == MOUND]
    assert [c.cards for c in moves] == [()]
    events = play(state, moves[0])
    assert EventKind.CARDS_DISCARDED.value not in kinds_of(events)
    assert state.seats[A3].hand == [CARD_OF["fox"]]
    assert vstate(state, A3).location == MOUND
    slip = vb_position(
        step="birdsong.slip",
        vagabonds={A3: {"location": QUARRY, "legendary": "forest_ghost"}},
    )
    assert MOUND in {c.to for c in legal_of(slip, CommandKind.SLIP) if not c.cards}


def test_R29_war_veteran_rerolls_its_die_in_a_looting_battle() -> None:
    items = ["sword", "sword", "boots"]
    state = _looting([Item.BAG], (3, 0), items)
    vstate(state, A3).legendary = "war_veteran"
    events = attack(state, looting=True)
    assert hits_set(events)[0] == 0
    assert {c.kind for c in legal_of(state, CommandKind.REROLL, A3)} == {CommandKind.REROLL}
    state.rng = rng_for_die(2)
    events = play(state, Command(CommandKind.REROLL, A3))
    rerolled = next(e for e in events if e.kind is EventKind.DIE_REROLLED)
    assert rerolled.values == (2,)
    assert hits_set(events) == (2, 3, 0, 0)  # the new die for A3; B1 keeps the high 3
    assert state.seats[B1].crafted_items == []  # the Looting now succeeds
    assert state.pieces[CREEK][B1]["warrior"] == 1
    # no reroll without Looting
    state = _looting([Item.BAG], (3, 0), items)
    vstate(state, A3).legendary = "war_veteran"
    attack(state)
    assert not legal_of(state, CommandKind.REROLL, A3)


# ----- R15 intervention ---------------------------------------------------------------------


def _b1_attacks_a1(items: list[str], dice: tuple[int, int], a3_at: str = CREEK) -> State:
    state = vb_position(
        turn=B1,
        pieces={CREEK: {A1: {"warrior": 3}, B1: {"warrior": 3}}},
        vagabonds={A3: {"location": a3_at, "items": items}, B3: {"location": CREEK}},
    )
    state.actions = 3
    state.rng = dice_seed(*dice)
    play(state, Command(CommandKind.BATTLE, B1, clearing=CREEK, target="A1"))
    return state


def test_R15_intervention_sword_adds_hit_to_the_attacker() -> None:
    state = _b1_attacks_a1(["sword", "boots"], (2, 1))
    options = {c.piece for c in legal_of(state, CommandKind.INTERVENE, A3)}
    assert options == {"sword", "boots"}
    play(state, Command(CommandKind.INTERVENE, A3, piece="sword"))
    assert state.pieces[CREEK][B1]["warrior"] == 3 - 2  # 1 rolled + 1 from the sword
    assert state.pieces[CREEK][A1]["warrior"] == 3 - 2
    assert item_keys(state, A3) == ["boots", "sword/exhausted"]


def test_R15_intervention_boots_cancel_a_hit_to_the_defender() -> None:
    state = _b1_attacks_a1(["sword", "boots"], (2, 1))
    play(state, Command(CommandKind.INTERVENE, A3, piece="boots"))
    assert state.pieces[CREEK][A1]["warrior"] == 3 - 1
    assert state.pieces[CREEK][B1]["warrior"] == 3 - 1
    assert item_keys(state, A3) == ["boots/exhausted", "sword"]


def test_R15_intervention_once_per_battle_only_where_the_vagabond_stands() -> None:
    state = _b1_attacks_a1(["sword", "sword", "boots"], (2, 1))
    play(state, Command(CommandKind.INTERVENE, A3, piece="sword"))
    assert state.battle is None and not legal_of(state, CommandKind.INTERVENE, A3)
    elsewhere = _b1_attacks_a1(["sword", "boots"], (2, 1), a3_at=HILL)
    assert elsewhere.battle is None  # nothing asked: the battle is over
    assert item_keys(elsewhere, A3) == ["boots", "sword"]
    # the rival Vagabond in the clearing never helps A1; declining goes on with the battle
    declined = _b1_attacks_a1(["sword"], (2, 1))
    assert declined.decisions[0].seat is A3
    play(declined, Command(CommandKind.DECLINE, A3))
    assert declined.battle is None
    assert declined.pieces[CREEK][A1]["warrior"] == 1


# ----- R20 torch pick-up --------------------------------------------------------------------


def test_R20_torch_pickup_of_own_team_item_makes_it_contraband() -> None:
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["torch", "boots"]}})
    state.dropped[CREEK] = [DroppedItem(Item.SWORD, Team.A, A1)]
    assert [(c.piece, c.target) for c in legal_of(state, CommandKind.PICK_UP)] == [("sword", "A1")]
    play(state, first_legal(state, CommandKind.PICK_UP))
    assert CREEK not in state.dropped
    assert item_keys(state, A3) == ["boots", "sword/contraband", "torch/exhausted"]
    public = next(s for s in view(state, None)["seats"] if s["seat"] == "A3")
    assert {"item": "sword", "contraband": True} in [
        {k: i[k] for k in ("item", "contraband")} for i in public["faction_state"]["items"]
    ]


def test_R20_torch_pickup_of_rival_item_is_simply_kept() -> None:
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["torch", "boots"]}})
    state.dropped[CREEK] = [DroppedItem(Item.BAG, Team.B, B1), DroppedItem(Item.BAG, Team.B, B1)]
    play(state, Command(CommandKind.PICK_UP, A3, clearing=CREEK, piece="bag", target="B1"))
    assert state.dropped[CREEK] == [DroppedItem(Item.BAG, Team.B, B1)]
    assert item_keys(state, A3) == ["bag", "boots", "torch/exhausted"]  # not contraband
    assert state.scores == {Team.A: 0, Team.B: 0}


def test_R20_torch_pickup_needs_a_face_up_torch_in_the_clearing() -> None:
    state = vb_position(vagabonds={A3: {"location": HILL, "items": ["torch", "boots"]}})
    state.dropped[CREEK] = [DroppedItem(Item.BAG, Team.B, B1)]
    assert legal_of(state, CommandKind.PICK_UP) == []
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["torch/exhausted", "boots"]}})
    state.dropped[CREEK] = [DroppedItem(Item.BAG, Team.B, B1)]
    assert legal_of(state, CommandKind.PICK_UP) == []


# ----- the Vagabond and the other teams' rules ----------------------------------------------


def test_vagabond_full_removal_damages_three_items() -> None:
    """A Revolt removing every rival piece where the pawn stands damages 3 items (§12.1)."""
    state = vb_position(
        vagabonds={A3: {"location": CREEK, "items": ["sword", "sword", "sword", "boots"]}}
    )
    assert RULES.full_removal is not None
    RULES.full_removal(Ctx(state), A3, HILL, B1)  # elsewhere: nothing
    assert item_keys(state, A3) == ["boots", "sword", "sword", "sword"]
    ctx = Ctx(state)
    RULES.full_removal(ctx, A3, CREEK, B1)
    play(state, Command(CommandKind.DAMAGE_ITEM, A3, piece="sword"))
    play(state, Command(CommandKind.DAMAGE_ITEM, A3, piece="sword"))
    play(state, Command(CommandKind.DAMAGE_ITEM, A3, piece="sword"))
    assert item_keys(state, A3) == ["boots", "sword/damaged", "sword/damaged", "sword/damaged"]


def test_R23_vagabond_crosses_a_bridge_on_its_eyries_wings() -> None:
    state = fresh(lineup="A=marquise,eyrie,thief;B=marquise")
    setup_seat(state, KEEP_A)
    setup_seat(state, KEEP_B)
    play(state, first_legal(state, CommandKind.PLACE_ROOST))
    play(state, first_legal(state, CommandKind.CHOOSE_LEADER))
    play(state, first_legal(state, CommandKind.PLACE_PAWN, clearing=PAWN_A))
    assert state.round == 1
    roost = next(c for c, per in state.pieces.items() if per.get(Seat.A2, {}).get("roost"))
    assert roost == "autumn.weald"  # opposite the keep in Hill: a bridge end (to Spire)
    vs = vstate(state, A3)
    vs.location = roost
    state.turn_seat, state.step, state.used, state.decisions = A3, "daylight.actions", {}, []
    flights = [
        c
        for c in legal_of(state, CommandKind.VAGABOND_MOVE)
        if c.to == "winter.spire" and c.piece == "wings"
    ]
    assert flights and flights[0].cards == ()
    hand = list(state.seats[A3].hand)
    play(state, flights[0])
    assert vs.location == "winter.spire" and state.seats[A3].hand == hand  # no fee
    assert state.used.get("wings_r23")  # a card is owed to the Eyrie at the end of the turn


# ----- R34: moving the warriors of an Allied rival --------------------------------------------

ALLIED_B1 = {"A1": "allied", "B1": "allied", "B3": "indifferent"}


def test_R34_an_allied_rival_moves_any_number_of_its_warriors_with_the_vagabond() -> None:
    pieces = {CREEK: {B1: {"warrior": 3}}}
    plain = vb_position(pieces=pieces, vagabonds={A3: {"location": CREEK, "items": ["boots"]}})
    assert all(c.target == "" for c in legal_of(plain, CommandKind.VAGABOND_MOVE))  # Indifferent
    state = vb_position(
        pieces=pieces,
        vagabonds={A3: {"location": CREEK, "items": ["boots"], "relations": ALLIED_B1}},
    )
    to_hill = [c for c in legal_of(state, CommandKind.VAGABOND_MOVE) if c.to == HILL]
    assert sorted((c.target, c.count) for c in to_hill) == [
        ("", 0),
        ("B1", 1),
        ("B1", 2),
        ("B1", 3),
    ]
    events = play(state, Command(CommandKind.VAGABOND_MOVE, A3, to=HILL, target="B1", count=2))
    moved = next(e for e in events if e.kind is EventKind.PIECES_MOVED)
    assert (moved.seat, moved.clearing, moved.to, moved.count) == ("B1", CREEK, HILL, 2)
    assert state.pieces[CREEK][B1]["warrior"] == 1
    assert state.pieces[HILL][B1]["warrior"] == 2
    assert vstate(state, A3).location == HILL
    assert not legal_of(state, CommandKind.BATTLE)  # it never battles with them (R14)


def test_R34_an_allied_rivals_contraband_goes_along_or_stays_as_with_a_teammate() -> None:
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 2}}},
        vagabonds={A3: {"location": CREEK, "items": ["boots"], "relations": ALLIED_B1}},
    )
    state.carried = {CREEK: {B1: [DroppedItem(Item.TEA, Team.B, B1)]}}
    state.stock["winter"][Item.TEA] -= 1
    loads = sorted(
        (c.count, c.clearings)
        for c in legal_of(state, CommandKind.VAGABOND_MOVE)
        if c.to == HILL and c.target == "B1"
    )
    assert loads == [(1, ()), (1, (CREEK,)), (2, (CREEK,))]  # all of them: it must go along
    play(
        state,
        Command(CommandKind.VAGABOND_MOVE, A3, to=HILL, target="B1", count=2, clearings=(CREEK,)),
    )
    assert state.carried == {HILL: {B1: [DroppedItem(Item.TEA, Team.B, B1)]}}


def test_R34_R27_a_teammate_still_never_moves_with_the_vagabond_without_vanguard_leader() -> None:
    state = vb_position(
        pieces={CREEK: {A1: {"warrior": 2}, B1: {"warrior": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["boots"], "relations": ALLIED_B1}},
    )
    assert {c.target for c in legal_of(state, CommandKind.VAGABOND_MOVE)} == {"", "B1"}
