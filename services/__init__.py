"""Frontier's service processes; each is a thin adapter over ``frontier`` (see libs/)."""
