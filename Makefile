# The two commands of the README:
#   make run    set up, then run the embedded default workflow (local games, baselines, frame judge)
#   make test   set up, then lint and run the whole test suite (what CI runs, .ci/run); the
#               Slurm workflow tests run beside the others (scripts/run_tests.sh)
# and the inner loop while editing:
#   make test-fast  the unit tier: every test without a slow, games, browser, slurm or engine
#                   marker (~1,000 tests, under 2 min); it sets up .venv only, not the engine
#   make lock       rewrite requirements.lock from .venv after a dependency change
VENV := .venv/bin
FAST := not slow and not games and not browser and not slurm and not engine

.PHONY: setup run test test-fast lint lock

setup:
	bash scripts/setup.sh

run: setup
	$(VENV)/snakemake --profile profiles/default

lint: setup
	$(VENV)/ruff check src tests workflow benchmarks
	$(VENV)/ruff format --check src tests workflow benchmarks
	$(VENV)/snakefmt --check Snakefile rules
	$(VENV)/snakemake --lint

test: lint
	bash scripts/run_tests.sh

test-fast:
	PLAYSUITE_ENGINE=none bash scripts/setup.sh
	$(VENV)/pytest -m "$(FAST)"

lock:
	$(VENV)/python scripts/lock_requirements.py
