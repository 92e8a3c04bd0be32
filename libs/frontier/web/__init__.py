"""The browser gateway: serves the web client and maps a small JSON + server-sent-events API
onto the orchestrator's public ``MatchService``.  It holds no rules: views,
legal commands and labels come from the server, read with the caller's own seat token."""
