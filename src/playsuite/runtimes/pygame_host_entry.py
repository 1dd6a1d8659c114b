"""How the pygame host starts the game's code: a script run as ``__main__``, or a function.

Part of the in-sandbox host (:mod:`pygame_host`): standard library only, loaded beside it. The
harness has already resolved the row's ``entry`` (a launcher becomes the script it runs, see
:mod:`playsuite.runtimes.pygame_entry`); here ``entry`` is either ``module:function`` or a
script's path relative to the game's tree, and ``cwd`` its working directory there.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from typing import Any


def run_entry(config: dict, host: Any) -> None:
    """Run the game's entry to its end; its globals become ``host.namespace`` (probes)."""
    entry = config["entry"]
    game_dir = config.get("game_dir", "/game")
    for extra in reversed(config.get("path") or []):
        sys.path.insert(0, os.path.join(game_dir, extra))
    args = list(config.get("args") or [])
    if ":" in entry and not entry.endswith(".py"):
        module_name, func_name = entry.split(":", 1)
        sys.argv = [module_name, *args]
        os.chdir(os.path.join(game_dir, config.get("cwd") or "."))
        module = importlib.import_module(module_name)
        host.namespace = module.__dict__
        func = getattr(module, func_name)
        if config.get("call") == "argv":
            func(sys.argv)
        else:
            func()
        return
    path = os.path.join(game_dir, entry)
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(path))
    os.chdir(os.path.join(game_dir, config["cwd"]) if config.get("cwd") else os.path.dirname(path))
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = __builtins__
    sys.modules["__main__"] = module
    host.namespace = module.__dict__
    with open(path, "rb") as fh:
        code = compile(fh.read(), path, "exec")
    exec(code, module.__dict__)
