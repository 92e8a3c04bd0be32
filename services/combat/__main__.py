"""``python -m services.combat``: run the combat domain service."""

from frontier.engine.domains import Domain
from frontier.runtime.domain_main import main

if __name__ == "__main__":
    main(Domain.COMBAT)
