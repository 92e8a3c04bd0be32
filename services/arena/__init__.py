"""The bot arena: registration, seating, ratings and the leaderboard (frontier.arena)."""
