"""Lineups (R1, R2): which faction sits in which seat, parsed from ``A=m1[,second[,vag]];B=...``."""

from __future__ import annotations

from .errors import InvalidConfig
from .model import Character, Faction, Role, Seat, Team
from .state import SeatSpec

R2_DEFAULT_LINEUP = "A=marquise,eyrie,thief;B=marquise,alliance,tinker"

# Factions whose rules are complete in this engine; a lineup naming another is refused.
IMPLEMENTED: frozenset[Faction] = frozenset(
    {Faction.MARQUISE, Faction.EYRIE, Faction.ALLIANCE, Faction.VAGABOND}
)

_ROLE_FACTIONS: dict[Role, frozenset[str]] = {
    Role.MILITARY1: frozenset({Faction.MARQUISE.value}),
    Role.SECOND: frozenset({Faction.EYRIE.value, Faction.ALLIANCE.value}),
    Role.VAGABOND: frozenset(c.value for c in Character),
}
_EMPTY = {"", "-", "none", "empty"}


def accepted_by(role: Role) -> frozenset[str]:
    """The lineup words ``role`` accepts (R1): faction names, or characters for the Vagabond."""
    return _ROLE_FACTIONS[role]


def default_lineup() -> str:
    """R2's default once every faction exists; until then the largest implemented lineup."""
    if {Faction.EYRIE, Faction.ALLIANCE, Faction.VAGABOND} <= IMPLEMENTED:
        return R2_DEFAULT_LINEUP
    return "A=marquise;B=marquise"


def parse_lineup(text: str, implemented: frozenset[Faction] = IMPLEMENTED) -> dict[Seat, SeatSpec]:
    """Parse and validate a lineup; raise :class:`InvalidConfig` with a readable reason."""
    teams: dict[Team, list[str]] = {}
    for part in text.replace(" ", "").split(";"):
        if not part:
            continue
        if "=" not in part:
            raise InvalidConfig(f"lineup part {part!r} must look like 'A=marquise,eyrie,thief'")
        name, _, roster = part.partition("=")
        try:
            team = Team(name.upper())
        except ValueError:
            raise InvalidConfig(f"unknown team {name!r}: teams are A and B") from None
        if team in teams:
            raise InvalidConfig(f"team {team.value} is listed twice")
        entries = [e.lower() for e in roster.split(",")]
        if len(entries) > 3:
            raise InvalidConfig(f"team {team.value} lists {len(entries)} seats; a team has 3")
        teams[team] = entries
    for team in Team:
        if not any(e not in _EMPTY for e in teams.get(team, [])):
            raise InvalidConfig(f"team {team.value} has no faction; each team needs a seat")
    lineup: dict[Seat, SeatSpec] = {}
    for team, entries in teams.items():
        for index, entry in enumerate(entries):
            if entry in _EMPTY:
                continue
            role = list(Role)[index]
            seat = Seat(f"{team.value}{role.value}")
            if entry not in {f.value for f in Faction} | {c.value for c in Character}:
                raise InvalidConfig(f"unknown faction {entry!r} in seat {seat.value}")
            if entry not in _ROLE_FACTIONS[role]:
                allowed = ", ".join(sorted(_ROLE_FACTIONS[role]))
                raise InvalidConfig(
                    f"seat {seat.value} is the {_role_name(role)} seat and takes one of: "
                    f"{allowed} (got {entry!r}); roles go Military 1, second, Vagabond (R1)"
                )
            if role is Role.VAGABOND:
                spec = SeatSpec(Faction.VAGABOND, Character(entry))
            else:
                spec = SeatSpec(Faction(entry))
            if spec.faction not in implemented:
                raise InvalidConfig(
                    f"faction {spec.faction.value!r} (seat {seat.value}) is not implemented yet"
                )
            lineup[seat] = spec
    return {s: lineup[s] for s in Seat if s in lineup}


def _role_name(role: Role) -> str:
    return {
        Role.MILITARY1: "Military 1",
        Role.SECOND: "Military 2 / Insurgent 1",
        Role.VAGABOND: "Vagabond",
    }[role]


def format_lineup(lineup: dict[Seat, SeatSpec]) -> str:
    parts = []
    for team in Team:
        names = []
        for role in Role:
            spec = lineup.get(Seat(f"{team.value}{role.value}"))
            if spec is None:
                names.append("")
            else:
                names.append(spec.character.value if spec.character else spec.faction.value)
        while names and not names[-1]:
            names.pop()
        parts.append(f"{team.value}={','.join(names)}")
    return ";".join(parts)
