"""The scoring domain service (see frontier.engine.domains for the command kinds it owns)."""
