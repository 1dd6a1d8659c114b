"""Package exports that load on first use (PEP 562 module ``__getattr__``).

A package face that imports every submodule makes each light caller pay for the heaviest one: the
stand-in server would wait for the inference client's HTTP stack, and every Snakemake start for the
baselines' image code. A package lists its exports by submodule instead and gets its module
``__getattr__`` and ``__dir__`` from here.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` whose name ``n`` lives in the submodule
    ``exports[n]``; a loaded name is cached in the package's namespace."""
    names = sorted(exports)

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def dir_() -> list[str]:
        return names

    return getattr_, dir_
