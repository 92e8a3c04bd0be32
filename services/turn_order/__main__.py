"""``python -m services.turn_order``: run the turn-order domain service."""

from frontier.domain.turn_order_service import main

if __name__ == "__main__":
    main()
