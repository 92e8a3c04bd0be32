"""``python -m services.scoring``: run the scoring domain service."""

from frontier.domain.main import main
from frontier.engine.domains import Domain

if __name__ == "__main__":
    main(Domain.SCORING)
