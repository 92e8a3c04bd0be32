"""``python -m services.scoring``: run the scoring domain service."""

from frontier.domain.scoring_service import main

if __name__ == "__main__":
    main()
