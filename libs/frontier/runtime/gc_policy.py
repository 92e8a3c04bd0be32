"""The garbage collector's settings for a long-running service process.

CPython's cyclic collector runs a young collection every 700 net allocations of tracked
objects and, now and then, a full one over every object the process holds.  A service
holds hundreds of thousands of objects from start-up on that never become garbage (the
modules, the engine's rules tables, protobuf descriptors), and a full collection walks
them all: measured in the orchestrator during the paced benchmark (50 matches,
``--think-ms 200``, ``gc.callbacks`` timing each collection), collections took 0.96-1.19 s
of CPU over a run of ~20 s of CPU, 537 of them, the full ones 70-90 ms each.

:func:`tune` moves what start-up built into the permanent generation (``gc.freeze``: never
scanned again) and raises the young threshold, so that most short-lived cycles (asyncio
futures and their callbacks, protobuf wrappers) are swept in far fewer, larger passes.
Same run with ``tune(10_000)``: 21 collections, 0.44 s of CPU.  The pauses change shape: a
second pair of runs (load average 11-16) had 651 collections, median 0.7 ms, five full ones
of 100-125 ms, against 24, median 19 ms, the longest 54 ms (its one full collection): fewer
commands wait for a collection, and none for one of 100 ms.  Nothing is freed later than
it would be without cycles: reference counting still frees every object that is not in a
reference cycle the moment it is unused; only cyclic garbage waits for the next pass.

Held matches set the older generations' cost.  Each command replaces its match's state,
legal list and recent events with new objects, which outlive the young pass that sees them
and are freed (by reference counting) a few seconds later, when the match's next command
replaces them: so a middle-aged pass walks about one state per playing match whenever it
runs, however often that is.  At 1,500 paced matches (``frontier bench stack --matches 1500
--think-ms 5000 --commands-per-match 24``, one orchestrator) such a pass took 37 ms of CPU
on average and up to 250 ms, and with one every 20 young passes (every ~15 s) those pauses
were most of the commands' p99 (133-185 ms).  One every 100 young passes instead, with the
young threshold lowered from 10,000 to 3,000 so that a young pass is shorter too (15 -> 7 ms
on average, at most 55 ms instead of 130): p99 44-48 ms, server CPU per command unchanged
or lower (3.6-3.9 -> 3.3-3.6 ms).  Young 10,000 with middle-aged 100 gave 89 ms; young
3,000 with middle-aged 20, 101-155 ms.
"""

from __future__ import annotations

import gc

# the older generations' thresholds once the young one is raised: a middle-aged pass every
# 100 young ones (see the module's docstring), a full pass every 20 middle-aged ones (and, as
# always in CPython, only once the objects that survived since the last full pass are a
# quarter of those held)
OLDER_THRESHOLDS = (100, 20)


def tune(young_threshold: int) -> None:
    """Freeze what the process holds now, and collect the young generation every
    ``young_threshold`` allocations (0: leave CPython's defaults, nothing frozen)."""
    if young_threshold < 0:
        raise ValueError(f"the young generation's threshold must be >= 0, got {young_threshold}")
    if young_threshold == 0:
        return
    gc.collect()  # what start-up left as garbage is not frozen with the rest
    gc.freeze()
    gc.set_threshold(young_threshold, *OLDER_THRESHOLDS)
