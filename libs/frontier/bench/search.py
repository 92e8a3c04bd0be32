"""Measurements of the search bot that a tournament does not give: think time and self-play.

``frontier tournament`` counts wins between two different bots.  Two goals of the search
bot need other numbers, measured here in-process on one core per job:

* ``timing``: the CPU time (one core, so a busy machine does not inflate it) of each of the
  search bot's decisions with a real choice while it plays against greedy, as p50 / p95 /
  max, next to its iteration budget;
* ``selfplay``: the search bot on every seat: each faction's average contribution to its
  team's score (``SeatState.vp``, R32) and how often contraband is scored at home (a
  ``contraband_validated`` event, R17/R20) per match;
* in both modes, the economics of crafting abroad (:func:`craft_tally`): item crafts at
  home and on the rival map (R16) with their printed points, and what became of the
  contraband (points validated at home, items seized by the rival), so the printed points a
  rival-map craft really brings home can be set against a home craft's, and how many
  decisions offered a craft abroad at all (``rival_craft_options``; ``rival_only_options``
  when no item craft at home was legal).

Run it with ``frontier bench search selfplay --matches 10`` (see ``--help``).  The decision
times also come in operations of the baseline workload timed in the same run
(``decision_baseline_kops``, :mod:`frontier.bench.baseline`), the figure to compare
between commits and machines.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from frontier.bench.baseline import Baseline
from frontier.bots import Bot, SearchBot, make_bot
from frontier.bots.halving import HalvingSearchBot
from frontier.engine import (
    Command,
    CommandKind,
    Event,
    EventKind,
    Seat,
    execute,
    initial_state,
    legal_commands,
    make_config,
)
from frontier.engine import to_act as actor_of
from frontier.engine.cards import card
from frontier.engine.contraband import printed_item_vp
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Item
from frontier.play.match_runner import bot_seed


def _faction(state_seat: Any) -> str:
    if state_seat.character is not None:
        return f"{state_seat.faction.value}:{state_seat.character.value}"
    return str(state_seat.faction.value)


CRAFT_KEYS = (
    "home_crafts",
    "home_craft_vp",
    "rival_crafts",
    "rival_craft_vp",
    "validated_vp",
    "seized",
    "rival_craft_options",
    "rival_only_options",
)


def option_tally(legal: Sequence[Command], tally: dict[str, int]) -> None:
    """Count a decision where an item craft on the rival map is legal (R16), and whether a
    home craft of an item is legal too: how often crafting abroad is even possible."""
    crafts = [c for c in legal if c.kind is CommandKind.CRAFT and card(c.cards[0]).item]
    if any(c.to for c in crafts):
        tally["rival_craft_options"] += 1
        if all(c.to for c in crafts):
            tally["rival_only_options"] += 1


def craft_tally(events: Sequence[Event], tally: dict[str, int]) -> None:
    """Add ``events``' item crafts and contraband outcomes to ``tally`` (keys ``CRAFT_KEYS``;
    points as printed, before the Eyrie's Disdain for Trade)."""
    for e in events:
        if e.kind is EventKind.CARD_CRAFTED and e.piece:
            where = "rival" if e.to else "home"  # R16: ``to`` names where contraband went
            tally[f"{where}_crafts"] += 1
            tally[f"{where}_craft_vp"] += card(e.cards[0]).vp
        elif e.kind is EventKind.CONTRABAND_VALIDATED:
            tally["validated_vp"] += printed_item_vp()[Item(e.piece)]
        elif e.kind is EventKind.CONTRABAND_SEIZED:
            tally["seized"] += 1


# The bots measured here, each from its seed and its budget (the search's iterations, the
# halving search's playouts).
SEARCHERS: dict[str, Callable[[int, int], Bot]] = {
    "search": lambda seed, budget: SearchBot(seed, iterations=budget),
    "search-halving": lambda seed, budget: HalvingSearchBot(seed, playouts=budget),
}


def play_one(
    lineup: str, seed: int, iterations: int, rival: str, search_team: str, bot: str = "search"
) -> dict[str, Any]:
    """One match: the search bot ``bot`` on ``search_team`` ("A", "B" or "both"), ``rival``
    elsewhere."""
    searcher = SEARCHERS[bot]
    config = make_config(seed=seed, lineup=lineup)
    state = initial_state(config)
    own = {s for s in state.order if search_team == "both" or s.team.value == search_team}
    bots: dict[Seat, Bot] = {}
    for seat in state.order:
        s = bot_seed(seed, seat)
        bots[seat] = searcher(s, iterations) if seat in own else make_bot(rival, s)
    times: list[float] = []
    validated = 0
    crafts = dict.fromkeys(CRAFT_KEYS, 0)
    while (actor := actor_of(state)) is not None:
        legal = legal_commands(state, actor)
        player = bots[actor]
        option_tally(legal, crafts)
        started = time.process_time()  # CPU time: one core, whatever else the machine runs
        cmd = player.choose(state, actor, legal)
        if actor in own and len(legal) > 1:
            times.append(time.process_time() - started)
        events = execute(state, cmd)
        validated += sum(1 for e in events if e.kind is EventKind.CONTRABAND_VALIDATED)
        craft_tally(events, crafts)
    return {
        "seed": seed,
        "search_team": search_team,
        "winner": state.winner,
        "scores": {t.value: n for t, n in state.scores.items()},
        "faction_vp": {f"{s.value}:{_faction(st)}": st.vp for s, st in state.seats.items()},
        "contraband_validated": validated,
        "crafts": crafts,
        "decision_s": times,
    }


def _run(jobs: int, tasks: Sequence[tuple[str, int, int, str, str, str]]) -> list[dict[str, Any]]:
    if jobs <= 1:
        return [play_one(*t) for t in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(play_one, *zip(*tasks, strict=True)))


def summarize(results: list[dict[str, Any]], iterations: int) -> dict[str, Any]:
    """Wins of the search side, decision times, faction VP and contraband, over ``results``."""
    times = sorted(t for r in results for t in r["decision_s"])
    by_faction: dict[str, list[int]] = defaultdict(list)
    for r in results:
        for key, vp in r["faction_vp"].items():
            by_faction[key.split(":", 1)[1] + " (" + key.split(":", 1)[0] + ")"].append(vp)
    versus = [r for r in results if r["search_team"] != "both"]
    out: dict[str, Any] = {
        "matches": len(results),
        "iterations": iterations,
        "search_wins": sum(1 for r in versus if r["winner"] == r["search_team"]),
        "versus_games": len(versus),
        "decisions": len(times),
        "faction_vp_mean": {k: round(statistics.mean(v), 2) for k, v in sorted(by_faction.items())},
        "matches_with_contraband_scored": sum(1 for r in results if r["contraband_validated"]),
        "crafts": {k: sum(r["crafts"][k] for r in results) for k in CRAFT_KEYS},
    }
    if times:
        out["decision_ms"] = {
            "p50": round(1000 * times[len(times) // 2], 1),
            "p95": round(1000 * times[int(len(times) * 0.95)], 1),
            "max": round(1000 * times[-1], 1),
        }
    return out


MODES = ("timing", "selfplay")


def run(
    mode: str,
    lineup: str = R2_DEFAULT_LINEUP,
    matches: int = 10,
    seed: int = 0,
    iterations: int = 200,
    rival: str = "greedy",
    jobs: int = 1,
    bot: str = "search",
) -> dict[str, Any]:
    """Play the matches of ``mode`` (``timing``: each seed twice, the search bot ``bot`` on
    each team against ``rival``; ``selfplay``: ``bot`` on every seat) and summarize them."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if bot not in SEARCHERS:
        raise ValueError(f"bot must be one of {', '.join(SEARCHERS)}, got {bot!r}")
    if matches < 1 or iterations < 1 or jobs < 1:
        raise ValueError("--matches, --iterations and --jobs must be at least 1")
    if mode == "selfplay":
        tasks = [(lineup, seed + i, iterations, rival, "both", bot) for i in range(matches)]
    else:
        tasks = [
            (lineup, seed + i // 2, iterations, rival, "AB"[i % 2], bot) for i in range(matches)
        ]
    baseline = Baseline()
    baseline.tick()
    summary = {"bot": bot, **summarize(_run(jobs, tasks), iterations)}
    baseline.tick()
    if "decision_ms" in summary:
        kops_per_ms = baseline.ops_per_us  # ops per µs = thousands of ops per ms
        summary["decision_baseline_kops"] = {
            k: round(ms * kops_per_ms, 1) for k, ms in summary["decision_ms"].items()
        }
    return {**summary, **baseline.as_json()}
