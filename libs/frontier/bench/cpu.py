"""CPU time and resident memory of the stack's processes, read from ``/proc``.

Why CPU time rather than latency: the machine is shared, so wall-clock figures move with the
neighbours' load, while the CPU a process spends on a command mostly does not.  The stack
benchmark reads every server process's ``utime + stime`` (``/proc/<pid>/stat``) before and
after a phase and divides the difference by the commands of that phase.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def cpu_ms(pid: int) -> float:
    """User plus system CPU time the process ``pid`` has used so far, in ms."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    # the command name (field 2) is in parentheses and may hold spaces: split after it
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
    return (utime + stime) * 1000 / TICKS_PER_S


def rss_kb(pid: int) -> int:
    """The process's resident set size, in KiB (0 when the kernel does not say)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@dataclass(frozen=True, slots=True)
class Sample:
    """Per process name: CPU ms used so far, and resident KiB now."""

    cpu: dict[str, float]
    rss: dict[str, int]

    @classmethod
    def take(cls, pids: Mapping[str, int]) -> Sample:
        return cls(
            {name: cpu_ms(pid) for name, pid in pids.items()},
            {name: rss_kb(pid) for name, pid in pids.items()},
        )

    def cpu_since(self, before: Sample) -> dict[str, float]:
        """CPU ms each process used between ``before`` and this sample."""
        return {name: self.cpu[name] - before.cpu.get(name, 0.0) for name in self.cpu}


def per_unit(used: Mapping[str, float], units: float) -> dict[str, float]:
    """``used`` divided by ``units`` (commands, match-seconds), rounded for a report."""
    if units <= 0:
        return {name: 0.0 for name in used}
    return {name: round(ms / units, 4) for name, ms in used.items()}
