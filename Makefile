# Frontier build entry points.  Everything runs from the project's own .venv, which `make venv`
# builds from pyproject.toml pinned by constraints.txt; only python3.11 must exist beforehand.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON_SYS ?= python3.11
VENV       := .venv
BIN        := $(VENV)/bin
PY         := $(BIN)/python
VENV_STAMP := $(VENV)/.installed.stamp

PROTO_ROOT  := proto
PROTO_SRC   := $(wildcard $(PROTO_ROOT)/frontier/v1/*.proto)
GEN_DIR     := libs/frontier/v1
PROTO_STAMP := $(GEN_DIR)/.generated.stamp

PYTEST_ARGS ?=

.PHONY: help venv proto run test lint bench constraints clean

help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "}; {printf "  %-12s %s\n", $$1, $$2}'

venv: $(VENV_STAMP) ## Create .venv and install the project (+dev extras) pinned by constraints.txt

# Re-runs only when the dependency inputs change; the stamp records the last good install.
$(VENV_STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON_SYS) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev]'
	@touch $@

proto: $(PROTO_STAMP) ## Generate Python code + mypy stubs (frontier.v1) from proto/frontier/v1/*.proto

# Old outputs are removed first so a deleted .proto leaves no stale module behind.
# PATH holds the venv so protoc finds the protoc-gen-mypy / protoc-gen-mypy_grpc plugins.
$(PROTO_STAMP): $(PROTO_SRC) $(VENV_STAMP)
	rm -f $(GEN_DIR)/*_pb2.py $(GEN_DIR)/*_pb2.pyi $(GEN_DIR)/*_pb2_grpc.py $(GEN_DIR)/*_pb2_grpc.pyi
	PATH="$(abspath $(BIN)):$$PATH" $(PY) -m grpc_tools.protoc -I$(PROTO_ROOT) \
		--python_out=libs --grpc_python_out=libs --mypy_out=libs --mypy_grpc_out=libs \
		$(PROTO_SRC)
	@touch $@

run: venv proto ## Start NATS + all services, play one bot match through MatchService, stop
	@mkdir -p var
	$(BIN)/frontier stack play --replay var/last-match.replay.json

test: venv proto ## Run the test suite (extra args: make test PYTEST_ARGS='-k wire')
	$(PY) -m pytest $(PYTEST_ARGS)

lint: venv proto ## ruff (check + format), mypy --strict, buf lint
	$(BIN)/ruff check libs services tests bench
	$(BIN)/ruff format --check libs services tests bench
	$(BIN)/mypy
	cd $(PROTO_ROOT) && $(abspath $(BIN))/buf lint

bench: venv proto ## Benchmark the rules engine
	$(BIN)/frontier bench engine

# Resolves the unpinned requirements of pyproject.toml in a throwaway venv and writes the
# exact versions of everything installed (the project itself excluded).
constraints: ## Re-pin constraints.txt to the newest versions that resolve (then run make venv)
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON_SYS) -m venv "$$tmp/venv"; \
	"$$tmp/venv/bin/python" -m pip install --quiet --upgrade pip; \
	"$$tmp/venv/bin/python" -m pip install --quiet '.[dev]'; \
	{ echo "# Exact pins for every runtime and dev dependency. Regenerate: make constraints"; \
	  "$$tmp/venv/bin/python" -m pip freeze --exclude frontier; } > constraints.txt

clean: ## Remove .venv, generated code, caches and build output
	rm -rf $(VENV) build dist var .mypy_cache .ruff_cache .pytest_cache .hypothesis
	rm -f $(PROTO_STAMP) $(GEN_DIR)/*_pb2.py $(GEN_DIR)/*_pb2.pyi $(GEN_DIR)/*_pb2_grpc.py $(GEN_DIR)/*_pb2_grpc.pyi
	find . -path ./.git -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
