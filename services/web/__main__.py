"""``python -m services.web``: run the browser gateway (uvicorn; the port is
``FRONTIER_WEB_PORT``, the orchestrator ``FRONTIER_ORCHESTRATOR_URL``)."""

from frontier.web.main import main

if __name__ == "__main__":
    main()
