"""``python -m services.orchestrator``: run the turn orchestrator."""

from frontier.orchestrator.main import main

if __name__ == "__main__":
    main()
