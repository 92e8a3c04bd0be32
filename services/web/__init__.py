"""The browser gateway process (``python -m services.web``)."""
