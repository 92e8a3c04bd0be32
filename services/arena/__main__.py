"""``python -m services.arena``: run the bot arena."""

from frontier.arena.main import main

if __name__ == "__main__":
    main()
