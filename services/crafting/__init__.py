"""The crafting domain service (see frontier.engine.domains for the command kinds it owns)."""
