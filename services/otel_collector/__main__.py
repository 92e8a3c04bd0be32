"""``python -m services.otel_collector``: run the OTLP/gRPC trace collector."""

from services.otel_collector.collector import main

if __name__ == "__main__":
    main()
