"""``python -m services.combat``: run the combat domain service."""

from frontier.domain.combat_service import main

if __name__ == "__main__":
    main()
