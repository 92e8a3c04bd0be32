"""The yardstick every benchmark divides by: a fixed pure-Python workload timed in the same run.

A raw microsecond figure moves with the machine (turbo, thermal limits, neighbours on a shared
runner); the same figure expressed in *baseline operations* (how many iterations of
:func:`~frontier.bench.engine.baseline_slice` fit in that time, on this machine, right now)
mostly does not, so it is the number to compare between commits and machines.  A
:class:`Baseline` is ticked before and after the measured work, so both see the same
conditions.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from frontier.bench.engine import BASELINE_SLICE, baseline_slice

US_SUFFIX = "_us"


class Baseline:
    """Accumulates timed slices of the baseline workload; :attr:`ops_per_us` is their rate."""

    def __init__(self) -> None:
        self.ops = 0
        self.seconds = 0.0

    def tick(self, slices: int = 1) -> None:
        """Time ``slices`` slices of the workload (call it beside the measured work)."""
        for _ in range(slices):
            start = time.perf_counter()
            baseline_slice(BASELINE_SLICE)
            self.seconds += time.perf_counter() - start
            self.ops += BASELINE_SLICE

    @property
    def ops_per_us(self) -> float:
        return self.ops / self.seconds / 1e6 if self.seconds > 0 else 0.0

    def ratios(self, figures: Mapping[str, object]) -> dict[str, float]:
        """For every ``<name>_us...`` figure, ``<name>_baseline_ops...``: the same time in
        baseline operations (``fold_us_per_batch`` -> ``fold_baseline_ops_per_batch``)."""
        rate = self.ops_per_us
        out: dict[str, float] = {}
        for key, value in figures.items():
            at = (key + "_").find(US_SUFFIX + "_")
            if at < 0 or isinstance(value, bool) or not isinstance(value, int | float):
                continue
            out[f"{key[:at]}_baseline_ops{key[at + len(US_SUFFIX) :]}"] = round(value * rate, 1)
        return out

    def as_json(self) -> dict[str, float]:
        return {"baseline_ops_per_us": round(self.ops_per_us, 3)}
