"""The sandbox tests play fixture games with the runtime fixtures."""

from tests.runtimes.conftest import acquired, run_options

__all__ = ["acquired", "run_options"]
