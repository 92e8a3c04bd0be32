"""``python -m services.crafting``: run the crafting domain service."""

from frontier.domain.crafting_service import main

if __name__ == "__main__":
    main()
