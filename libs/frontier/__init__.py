"""Frontier: a match server for a six-seat, two-team variant of Root.

Subpackages: ``engine`` (the pure rules core), ``v1`` (code generated from proto/frontier/v1),
``wire`` (conversion between the two).
"""
