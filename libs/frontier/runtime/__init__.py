"""Shared plumbing of the services: settings, gRPC server bootstrap, NATS bus, projections,
telemetry and error mapping.  Nothing here knows a game rule; the engine does."""
