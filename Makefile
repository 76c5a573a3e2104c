# Boardgammon: make run · make test · make check · make bench · make lint
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: run test check bench bench-strength bench-analysis bench-ratings bench-soak lint install warm system-deps clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) warm

# numba's compiled code for this version of the source, ahead of the first game or analysis
# (about a minute after an install or an edit, a second when cached).
warm: $(STAMP)
	$(BIN)/boardgammon warm

# Debian packages the test suite drives: gnubg (the reference engine), chromium (browser tests),
# nginx (the deployment test, docs/deploy.md) and a Japanese font (IPA Gothic), without which
# the browser draws the ja pages' text as empty boxes in the screenshots people review.
system-deps:
	@missing=""; \
	{ command -v gnubg >/dev/null 2>&1 || test -x /usr/games/gnubg; } || missing="$$missing gnubg"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	{ command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx; } || missing="$$missing nginx"; \
	dpkg -s fonts-ipafont-gothic >/dev/null 2>&1 || missing="$$missing fonts-ipafont-gothic"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# Another port or interface: make run ARGS="--port 9000" (boardgammon serve --help).
run: install
	$(BIN)/boardgammon serve $(ARGS)

test: install system-deps
	$(BIN)/python -m pytest -q

# Everyday: lint, then the tests that need neither gnubg nor a browser and take seconds.
check: lint
	$(BIN)/python -m pytest -q -x -m "not slow and not browser and not gnubg"

bench: install system-deps
	$(BIN)/python -m benchmarks

# Strength of the neural levels against gnubg (hours; not in CI). Options: see benchmarks/strength.py.
bench-strength: install system-deps
	$(BIN)/python -m benchmarks.strength $(ARGS)

# Analysis speed beside gnubg, then our analysis against gnubg's on the same matches (a report):
# issue #27's measure first, on matches gnubg plays against itself (about 15 minutes).
bench-analysis: install system-deps
	$(BIN)/python -m benchmarks analysis
	$(BIN)/python -m benchmarks.analysis_noisy 25
	$(BIN)/python -m benchmarks.analysis_vs_gnubg 3
	$(BIN)/python -m benchmarks.cube_vs_gnubg 30

# Rating systems on simulated players of measured strength (minutes; not in CI): docs/ratings.md.
bench-ratings: install
	$(BIN)/python -m benchmarks ratings

# Live matches on two server processes (PostgreSQL + Redis on this machine) for a bounded time,
# then actions, losses, errors, latency and memory (minutes; not in CI): docs/server.md.
# Options: ARGS="--matches 8 --seconds 120" (python -m benchmarks.soak --help).
bench-soak: install
	$(BIN)/python -m benchmarks.soak $(ARGS)

# ruff, then mypy in its default mode over src/ (settings in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks training
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info
