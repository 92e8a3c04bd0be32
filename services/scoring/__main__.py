"""``python -m services.scoring``: run the scoring domain service."""

from frontier.engine.domains import Domain
from frontier.runtime.domain_main import main

if __name__ == "__main__":
    main(Domain.SCORING)
