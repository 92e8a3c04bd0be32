"""A minimal OpenTelemetry trace collector (OTLP/gRPC in, JSON lines out) for the compose stack."""
