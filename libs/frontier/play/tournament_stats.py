"""What a tournament adds up per bot besides wins: VP contribution, mechanics, score curves.

Each match's :class:`~frontier.play.match_stats.MatchStats` is folded in here, per lineup
and per bot (a bot plays every seat of its team):

* :class:`Contribution`: each seat's recorded VP (R32) by team role and faction, as a mean
  per game and as a share of its team's score, so one sees which faction of a team earns
  its points.
* :class:`MechanicTally`: per variant mechanic, the share of matches in which the bot's team
  did it at least once and the mean count per match.
* :class:`ScoreCurve`: the bot's team score at the end of each round, averaged over matches
  (a match over before the last round keeps its final score for the rounds it did not play).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from frontier.engine import Team
from frontier.engine.lineup import parse_lineup
from frontier.engine.model import Role
from frontier.play.match_stats import MECHANIC_KEYS, MatchStats

ROLE_NAMES: dict[Role, str] = {
    Role.MILITARY1: "military1",
    Role.SECOND: "second",
    Role.VAGABOND: "vagabond",
}


def seat_labels(lineup: str) -> dict[str, tuple[str, str]]:
    """Seat -> (team role, faction label) of a lineup; a Vagabond is named by character."""
    out: dict[str, tuple[str, str]] = {}
    for seat, spec in parse_lineup(lineup).items():
        faction = spec.character.value if spec.character is not None else spec.faction.value
        out[seat.value] = (ROLE_NAMES[seat.role], faction)
    return out


@dataclass
class ContributionRow:
    games: int = 0
    vp: int = 0
    team_vp: int = 0

    @property
    def mean_vp(self) -> float:
        return self.vp / self.games if self.games else 0.0

    @property
    def share(self) -> float:
        return self.vp / self.team_vp if self.team_vp > 0 else 0.0


@dataclass
class Contribution:
    """Per (team role, faction): the VP its seat recorded, over the games the bot played."""

    rows: dict[tuple[str, str], ContributionRow] = field(default_factory=dict)

    def add(self, labels: dict[str, tuple[str, str]], team: Team, stats: MatchStats) -> None:
        seats = [s for s in labels if s[0] == team.value]
        team_vp = sum(stats.contribution.get(s, 0) for s in seats)
        for seat in sorted(seats):
            row = self.rows.setdefault(labels[seat], ContributionRow())
            row.games += 1
            row.vp += stats.contribution.get(seat, 0)
            row.team_vp += team_vp

    def as_json(self) -> list[dict[str, object]]:
        return [
            {
                "role": role,
                "faction": faction,
                "games": row.games,
                "vp": row.vp,
                "mean_vp": round(row.mean_vp, 3),
                "share": round(row.share, 4),
            }
            for (role, faction), row in self.sorted_rows()
        ]

    def sorted_rows(self) -> list[tuple[tuple[str, str], ContributionRow]]:
        """By team role (military1, second, vagabond: the role order), then faction."""
        return sorted(self.rows.items())


@dataclass
class MechanicTally:
    """Per mechanic: in how many of the bot's matches it happened, and how often in all."""

    matches: int = 0
    happened: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MECHANIC_KEYS, 0))
    total: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MECHANIC_KEYS, 0))

    def add(self, counts: dict[str, int]) -> None:
        self.matches += 1
        for key in MECHANIC_KEYS:
            n = counts.get(key, 0)
            self.total[key] += n
            self.happened[key] += n > 0

    def share(self, key: str) -> float:
        return self.happened[key] / self.matches if self.matches else 0.0

    def mean(self, key: str) -> float:
        return self.total[key] / self.matches if self.matches else 0.0

    def merge(self, other: MechanicTally) -> None:
        self.matches += other.matches
        for key in MECHANIC_KEYS:
            self.happened[key] += other.happened[key]
            self.total[key] += other.total[key]

    def as_json(self) -> dict[str, object]:
        return {
            "matches": self.matches,
            "counts": {
                key: {
                    "share": round(self.share(key), 4),
                    "mean": round(self.mean(key), 3),
                    "total": self.total[key],
                }
                for key in MECHANIC_KEYS
            },
        }


@dataclass
class ScoreCurve:
    """The team score at the end of each round, one list per match."""

    matches: list[list[int]] = field(default_factory=list)

    def add(self, team: Team, stats: MatchStats) -> None:
        self.matches.append([scores[team] for scores in stats.rounds])

    def means(self) -> list[float]:
        """Mean score after round 1, 2, ...; a shorter match holds its last score."""
        rounds = max((len(m) for m in self.matches if m), default=0)
        played = [m for m in self.matches if m]
        if not played:
            return []
        return [sum(m[min(i, len(m) - 1)] for m in played) / len(played) for i in range(rounds)]


@dataclass
class BotStats:
    """Everything this module adds up for one bot in one lineup."""

    contribution: Contribution = field(default_factory=Contribution)
    mechanics: MechanicTally = field(default_factory=MechanicTally)
    scores: ScoreCurve = field(default_factory=ScoreCurve)

    def add(self, labels: dict[str, tuple[str, str]], team: Team, stats: MatchStats) -> None:
        self.contribution.add(labels, team, stats)
        self.mechanics.add(stats.mechanics.get(team, {}))
        self.scores.add(team, stats)
