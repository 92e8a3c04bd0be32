"""``python -m services.turn_order``: run the turn-order domain service."""

from frontier.domain.main import main
from frontier.engine.domains import Domain

if __name__ == "__main__":
    main(Domain.TURN_ORDER)
