"""A match as it is stored on NATS: its record, its seats, its snapshots, and loading it back.

The orchestrator writes these (it is each match's single writer); the domain services read
them to build a projection of a match they have not seen.  The stream and the buckets
themselves are :mod:`frontier.runtime.bus`.
"""
