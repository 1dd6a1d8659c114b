# The two commands of the README:
#   make run    set up, then run the embedded default workflow (local games, baselines, frame judge)
#   make test   set up, then lint and run the whole test suite
VENV := .venv/bin

.PHONY: setup run test lint

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
	$(VENV)/pytest
