"""Match configuration, validated with pydantic at the edge of the engine.

The engine core works on plain dataclasses; this model is where untrusted input (CLI flags,
gRPC requests, replay files) is checked once, with readable errors.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import InvalidConfig
from .lineup import default_lineup, parse_lineup
from .model import Seat
from .state import Options, SeatSpec


class MatchConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = Field(default=0, ge=0, lt=2**63, description="seed of the match's generator")
    lineup: str = Field(default_factory=default_lineup, description="A=...;B=... (R1, R2)")
    team_hands_visible: bool = Field(default=False, description="R4 option")
    max_rounds: int = Field(default=6, ge=1, le=6, description="R3: at most 6 rounds")

    @field_validator("lineup")
    @classmethod
    def _valid_lineup(cls, value: str) -> str:
        try:
            parse_lineup(value)
        except InvalidConfig as exc:
            raise ValueError(str(exc)) from None
        return value

    def seats(self) -> dict[Seat, SeatSpec]:
        return parse_lineup(self.lineup)

    def options(self) -> Options:
        return Options(team_hands_visible=self.team_hands_visible, max_rounds=self.max_rounds)


def make_config(**values: object) -> MatchConfig:
    """Build a config, turning pydantic's validation error into an :class:`InvalidConfig`."""
    try:
        return MatchConfig.model_validate(values)
    except ValidationError as exc:
        reasons = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'config'}: {e['msg']}" for e in exc.errors()
        )
        raise InvalidConfig(reasons) from None
