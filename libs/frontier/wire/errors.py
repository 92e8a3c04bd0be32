"""The one error the wire layer raises for data it cannot convert.

Its own module so that every converter (records, views, the enum twins) raises the same
class without importing another converter; :mod:`frontier.wire.convert` re-exports it.
"""

from __future__ import annotations

__all__ = ["WireError"]


class WireError(ValueError):
    """Data that cannot be converted between the engine and the wire (bad input, not a bug)."""
