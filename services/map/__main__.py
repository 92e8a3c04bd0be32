"""``python -m services.map``: run the map domain service."""

from frontier.domain.main import main
from frontier.engine.domains import Domain

if __name__ == "__main__":
    main(Domain.MAP)
