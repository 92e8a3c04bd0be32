"""Test-wide settings.

Hypothesis: under CI (``CI=true``) examples are derandomized, so a red build is reproducible
from the log, and the per-example deadline is off, because the 2-core CI machine's timing
jitter must not fail a property that is about correctness, not speed.  Locally the default
profile keeps exploring new random examples on every run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() in {"1", "true"} else "dev")
