"""A person at a seat's page, played by clicks only: one click at a time on what the page
offers (a map clearing, a destination, a count, an answer, a grouped command, the step's
end), counting clicks per stretch of the seat's choices and the bytes each command costs."""

from __future__ import annotations

import contextlib
import random
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Error as PlaywrightError

CHOICES_MAX = 15
# An id shape: a map or card id such as autumn.dune or ambush_bird.1 (never in the log).
RAW_ID = re.compile(r"\w+\.\w+")


def drag(page: Any, source: Any, to: str) -> None:
    """Drags with the mouse from a place on the board to another (clearings or forests): press
    on the source, move there in steps, release on it.  Where the two are not both in sight,
    a tap on the source instead (as a player would, scrolling first)."""
    target = page.query_selector(f"#board [data-clearing='{to}'], #board [data-forest='{to}']")
    source.scroll_into_view_if_needed()
    a = source.query_selector(".hit").bounding_box()
    b = target.query_selector(".hit").bounding_box()
    size = page.viewport_size
    if not a or not b or not (0 <= b["y"] + b["height"] / 2 <= size["height"]):
        source.query_selector(".hit").click()
        return
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=6)
    page.mouse.up()


@dataclass
class Stretch:
    """The seat's choices from the first to the last of a run of its commands."""

    clicks: int = 0
    commands: int = 0
    setup: bool = False  # placing the starting pieces (round 0), not a turn


def turns(stretches: list[Stretch]) -> str:
    """The median turn (a stretch of own commands after setup) in clicks and commands."""
    own = [s for s in stretches if s.commands and not s.setup]
    if not own:
        return "no turn"
    clicks = statistics.median(s.clicks for s in own)
    commands = statistics.median(s.commands for s in own)
    return f"median turn {clicks} clicks for {commands} commands ({len(own)} turns)"


@dataclass
class SeatPlayer:
    page: Any
    seed: int
    map_moves_per_turn: int = 2  # map commands before it ends its step
    full_marches: bool = False  # taps the far clearing of a march (both moves) when offered
    drags: bool = True  # a move from a clearing not yet chosen is dragged to its destination
    stretches: list[Stretch] = field(default_factory=list)
    command_bytes: list[int] = field(default_factory=list)  # each command's reply, as sent
    command_raw: list[int] = field(default_factory=list)  # each command's reply, as JSON
    reads_bytes: list[int] = field(default_factory=list)  # view/legal reads, as sent
    longest_list: int = 0
    current: Stretch | None = None
    used_map: int = 0
    trail: list[str] = field(default_factory=list)  # what was clicked, in order
    battles: int = 0  # looks that found a battle panel
    prompts: list[str] = field(default_factory=list)  # the decisions' prompts read
    ended_by_key: int = 0  # steps or turns ended by the keyboard's E or T
    ids_seen: list[str] = field(default_factory=list)  # ids found in the acting panel's text

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.page.on("response", self._measure)

    def _measure(self, response: Any) -> None:
        url = response.url
        if "/api/matches/" not in url or "/events" in url:
            return
        with contextlib.suppress(PlaywrightError):
            raw = len(response.body())
            sent = int(response.header_value("content-length") or raw)
            if url.endswith("/commands") and response.request.method == "POST":
                self.command_bytes.append(sent)
                self.command_raw.append(raw)
                if self.current is not None:
                    self.current.commands += 1
            elif url.endswith("/view") or url.endswith("/legal"):
                self.reads_bytes.append(sent)

    def check_structure(self) -> int:
        """Every list offered holds at most CHOICES_MAX buttons and every legal command is
        reachable; the number of legal commands the panel holds."""
        facts = self.page.evaluate(
            """() => {
              const act = document.querySelector('#act');
              const busy = { commands: -1, reachable: -1, lists: [] };
              if (act?.classList.contains('busy')) return busy;
              const lists = [...document.querySelectorAll('#act ul.choices')]
                .map((u) => u.querySelectorAll('button').length);
              return { commands: Number(act?.dataset.commands ?? 0),
                       reachable: Number(act?.dataset.reachable ?? 0), lists };
            }"""
        )
        longest = max(facts["lists"], default=0)
        self.longest_list = max(self.longest_list, longest)
        assert longest <= CHOICES_MAX, f"a list of {longest} choices"
        assert facts["reachable"] == facts["commands"], facts
        return int(facts["commands"])

    def look_at_the_battle(self) -> None:
        """A battle on show names both sides and its clearing, never by id."""
        with contextlib.suppress(PlaywrightError):
            panel = self.page.query_selector("#battle")
            said = panel.inner_text() if panel else ""
            if said:
                assert said.startswith("Battle in") and "Attacker" in said and "Defender" in said
                assert not RAW_ID.findall(said), said
                self.battles += 1

    def read_the_prompt(self) -> None:
        """The prompt says what is asked in words: a decision's context, else the step."""
        with contextlib.suppress(PlaywrightError):
            said = self.page.inner_text("#prompt")
            assert said and not RAW_ID.findall(said), said
            self.ids_seen += RAW_ID.findall(self.page.inner_text("#act"))
            if self.page.query_selector("#act .act-answers"):
                assert not said.startswith("Your turn"), said
                self.prompts.append(said)

    def step(self) -> bool:
        """One click if the seat has a choice to make; False when it has none."""
        self.look_at_the_battle()
        try:
            commands = self.check_structure()
        except PlaywrightError:
            return False
        if commands < 0:  # a command on its way: the choices take no click
            return False
        if not commands:
            self._close_stretch()
            return False
        if self.current is None:
            self.current = Stretch(setup=self._in_setup())
            self.used_map = 0
            # the tab's title tells the player, also while looking at another tab
            assert self.page.title().startswith("● Your turn"), self.page.title()
        self.read_the_prompt()
        target = self._choose()
        if target is None:
            return False
        try:
            if isinstance(target, str):  # a keyboard shortcut: one press, counted as a click
                self.trail.append(f"key {target}")
                self.page.keyboard.press(target)
            elif isinstance(target, tuple):  # a move dragged to its destination: one gesture
                source, to = target
                self.trail.append(f"drag {source.get_attribute('data-clearing')} to {to}")
                drag(self.page, source, to)
            else:
                what = target.get_attribute("data-clearing") or target.inner_text()
                self.trail.append(str(what)[:30])
                target.click(timeout=2000)
        except PlaywrightError:
            return False  # redrawn between look and click: look again
        self.current.clicks += 1
        return True

    def _choose(self) -> Any:
        q = self.page.query_selector
        for selector in ("#act-menu ul[data-key=count] button", "#act .act-answers button"):
            found = q(selector)
            if found:
                return found
        menu = q("#act-menu")
        if menu:
            # a destination, or a clearing one path further (both moves of a march)
            far = self.page.query_selector_all("#board g.clearing.dest2")
            dests = self.page.query_selector_all("#board g.clearing.dest, #board g.clearing.dest2")
            if far and self.full_marches:
                return self.rng.choice(far)
            if dests:
                return self.rng.choice(dests)
            inside = self.page.query_selector_all("#act-menu button.cmd, #act-menu button.group")
            if inside:
                self.used_map += 1
                return self.rng.choice(inside)
        targets = self.page.query_selector_all("#board g.clearing:has(rect.target)")
        # the whole turn ends at once only after the map actions: else step by step
        done = self.used_map >= self.map_moves_per_turn
        whole = done and q("#act #end-turn")
        end = whole or q("#act button.end")
        if targets and (self.used_map < self.map_moves_per_turn or not end):
            self.used_map += 1
            chosen = self.rng.choice(targets)
            to = (chosen.get_attribute("data-to") or "").split()
            return (chosen, self.rng.choice(to)) if to and self.drags else chosen
        if end:  # the step's or the turn's end by its shortcut, as a player at a keyboard
            self.ended_by_key += 1
            return "t" if whole else "e"
        return q("#act button.cmd") or q("#act button.group")

    def _in_setup(self) -> bool:
        with contextlib.suppress(PlaywrightError):
            return str(self.page.inner_text("#strip .round")).startswith("Round 0")
        return False

    def _close_stretch(self) -> None:
        if self.current is not None and (self.current.clicks or self.current.commands):
            self.stretches.append(self.current)
        self.current = None

    def clicks(self) -> int:
        """Every click so far."""
        return sum(s.clicks for s in self.stretches) + (self.current.clicks if self.current else 0)

    def summary(self, name: str) -> str:
        self._close_stretch()
        own = [s for s in self.stretches if s.commands]
        clicks = statistics.median(s.clicks for s in own) if own else 0
        commands = statistics.median(s.commands for s in own) if own else 0
        per = statistics.median(self.command_bytes) if self.command_bytes else 0
        reads = sum(self.reads_bytes) / max(1, len(self.command_bytes))
        return (
            f"{name}: {len(own)} stretches of own commands; median {clicks} clicks for"
            f" {commands} commands; {turns(own)}; {sum(s.clicks for s in own)} clicks for"
            f" {len(self.command_bytes)} commands in all; a command's reply: median {per} bytes"
            f" as sent ({statistics.median(self.command_raw or [0])} as JSON); reads of others'"
            f" moves per own command {reads:.0f} bytes as sent; longest list"
            f" {self.longest_list}; battle panels seen {self.battles}; steps or turns ended by"
            f" key {self.ended_by_key}; stretches (clicks,"
            f" commands): {[(s.clicks, s.commands) for s in self.stretches]}"
        )
