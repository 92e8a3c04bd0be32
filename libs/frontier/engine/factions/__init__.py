"""The factions, one module (or a few, split by concern) each, plus the protocol they all
implement (:mod:`.base`).

Nothing here is imported by the shared rules: they reach a faction through
:mod:`frontier.engine.registry`, which :mod:`frontier.engine.roster` fills.
"""
