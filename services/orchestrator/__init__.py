"""The turn orchestrator: public MatchService, single writer of each match."""
