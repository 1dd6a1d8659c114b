"""Test doubles and synthetic data, kept out of the package proper.

Nothing else in ``playsuite`` imports this package (a layer contract in pyproject.toml checks it);
tests, benchmarks and a person trying the harness without a GPU use it directly.

* :mod:`.standin_server` — a protocol-faithful stand-in for ``vllm serve`` (no model);
  :mod:`.standin_requests` holds its request checks, :mod:`.standin` builds its command line.
* :mod:`.synthetic_scores` — scores tables with planted effects, for the statistics.
* :mod:`.synthetic_episode` — a scripted game recorded into a real episode directory.
* :mod:`.fakes` — a scripted runtime and a scripted policy for the episode loop's unit tests.
* :mod:`.repo` — a copy of the repository for tests that run the workflow on it.
"""
