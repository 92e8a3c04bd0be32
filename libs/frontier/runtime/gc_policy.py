"""The garbage collector's settings for a long-running service process.

CPython's cyclic collector runs a young collection every 700 net allocations of tracked
objects and, now and then, a full one over every object the process holds.  A service
holds hundreds of thousands of objects from start-up on that never become garbage (the
modules, the engine's rules tables, protobuf descriptors), and a full collection walks
them all: with CPython's defaults the collector is a visible share of a service's CPU, and
its full passes are pauses long enough to show in the commands' latencies.

:func:`tune` moves what start-up built into the permanent generation (``gc.freeze``: never
scanned again) and raises the young threshold, so that most short-lived cycles (asyncio
futures and their callbacks, protobuf wrappers) are swept in far fewer, larger passes, and
no command waits behind a full pass over start-up's objects.  Nothing is freed later than
it would be without cycles: reference counting still frees every object that is not in a
reference cycle the moment it is unused; only cyclic garbage waits for the next pass.

Held matches set the older generations' cost.  Each command replaces its match's state,
legal list and recent events with new objects, which outlive the young pass that sees them
and are freed (by reference counting) a few seconds later, when the match's next command
replaces them: so a middle-aged pass walks about one state per playing match whenever it
runs, however often that is.  With many paced matches those passes are the longest pauses
a service has, so they are made rare (:data:`OLDER_THRESHOLDS`), and the young threshold is
kept moderate (:data:`YOUNG_THRESHOLD`) so that each young pass stays short too: a larger
one made fewer passes but longer pauses, a smaller one more middle-aged passes.  The
figures behind both numbers are in docs/performance.md.
"""

from __future__ import annotations

import gc

# allocations between two young collections once start-up is frozen
YOUNG_THRESHOLD = 3_000

# the older generations' thresholds once the young one is raised: a middle-aged pass every
# 100 young ones (see the module's docstring), a full pass every 20 middle-aged ones (and, as
# always in CPython, only once the objects that survived since the last full pass are a
# quarter of those held)
OLDER_THRESHOLDS = (100, 20)


def tune(young_threshold: int = YOUNG_THRESHOLD) -> None:
    """Freeze what the process holds now, and collect the young generation every
    ``young_threshold`` allocations.  Called once start-up is over, so that what it built
    is never scanned again."""
    if young_threshold <= 0:
        raise ValueError(f"the young generation's threshold must be > 0, got {young_threshold}")
    gc.collect()  # what start-up left as garbage is not frozen with the rest
    gc.freeze()
    gc.set_threshold(young_threshold, *OLDER_THRESHOLDS)
