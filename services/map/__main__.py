"""``python -m services.map``: run the map domain service."""

from frontier.domain.map_service import main

if __name__ == "__main__":
    main()
