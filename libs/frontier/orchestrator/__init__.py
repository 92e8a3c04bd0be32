"""The turn orchestrator: the public MatchService and the single writer of each match."""
