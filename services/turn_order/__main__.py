"""``python -m services.turn_order``: run the turn-order domain service."""

from frontier.engine.domains import Domain
from frontier.runtime.domain_main import main

if __name__ == "__main__":
    main(Domain.TURN_ORDER)
