"""Import hooks of the pygame host: a faster game start that draws the same random numbers.

Part of the in-sandbox host (:mod:`pygame_host`): standard library only, loaded beside it.
"""

from __future__ import annotations

import random
import sys
import threading


def seed_generators(seed: int, lazy: bool) -> None:
    """Seed ``random``, and numpy's global generator unless :class:`FastImports` does it."""
    random.seed(seed)
    if lazy:
        return
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:
        pass


class _LoaderWrapper:
    """A module loader that adds something around the real loader's ``exec_module``.

    Everything else is the real loader's, and the module gets the real loader back once it has
    run, so only the added step can be observed.
    """

    def __init__(self, loader) -> None:
        self._loader = loader

    def __getattr__(self, name: str):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader


class _SeedAfterExec(_LoaderWrapper):
    """numpy: seed its global generator right after its body ran, before anyone can draw."""

    def __init__(self, loader, seed: int) -> None:
        super().__init__(loader)
        self._seed = seed

    def exec_module(self, module) -> None:
        super().exec_module(module)
        module.random.seed(self._seed)


class _WithoutPkgResources(_LoaderWrapper):
    """pygame.pkgdata: run its body while ``pkg_resources`` cannot be imported."""

    def exec_module(self, module) -> None:
        hidden = "pkg_resources" not in sys.modules
        if hidden:
            sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # -> ImportError
        try:
            super().exec_module(module)
        finally:
            if hidden and "pkg_resources" in sys.modules and sys.modules["pkg_resources"] is None:
                del sys.modules["pkg_resources"]


def _top_level_names(source: bytes) -> set[str] | None:
    """Names a module body binds at top level, or ``None`` when that cannot be known."""
    import ast

    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name.split(".")[0])
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
                elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                    names.update(a.asname or a.name.split(".")[0] for a in sub.names)
                elif isinstance(sub, ast.Call) and getattr(sub.func, "id", "") in (
                    "globals",
                    "exec",
                    "setattr",
                ):
                    return None
    return names | {"__all__", "__doc__", "__annotations__"}


class _DeferredBody(_LoaderWrapper):
    """Run a module's body on first use of a name the body defines (PEP 562 ``__getattr__``).

    Unlike ``importlib.util.LazyLoader``, asking for a name the module does not define (a game
    sweeping ``sys.modules`` with ``hasattr``, as solarwolf does from a thread) answers
    ``AttributeError`` without running the body, exactly as the loaded module would, so a sweep
    never imports numpy behind the game's back. Falls back to running the body at once when
    the source cannot be read or binds names dynamically.
    """

    def exec_module(self, module) -> None:
        try:
            names = _top_level_names(self._loader.get_source(module.__name__).encode())
        except Exception:
            names = None
        if names is None:
            super().exec_module(module)
            return
        lock = threading.RLock()
        loader = self

        def __getattr__(name: str):
            with lock:
                if module.__dict__.get("__getattr__") is __getattr__:
                    if name not in names:
                        raise AttributeError(
                            f"module {module.__name__!r} has no attribute {name!r}"
                        )
                    del module.__dict__["__getattr__"]
                    try:
                        _LoaderWrapper.exec_module(loader, module)
                    except BaseException:
                        module.__dict__["__getattr__"] = __getattr__
                        raise
            return object.__getattribute__(module, name)

        module.__dict__["__getattr__"] = __getattr__


class FastImports:
    """Import hook that keeps a game's start from loading what it may never use.

    Old pygame (Debian's 2.1.2) imports numpy through ``surfarray``/``sndarray`` on
    ``import pygame`` (~0.1 s CPU), and its display module imports ``pygame.pkgdata`` to find
    its window icon, which imports ``pkg_resources`` (~0.1 s CPU) just to open a file next to
    pygame's own modules: together about half of a light game's launch CPU. So:

    * ``pygame.surfarray`` and ``pygame.sndarray`` run their bodies on first use of one of
      their names (:class:`_DeferredBody`), as pygame-ce defers them itself;
    * ``pygame.pkgdata`` runs with ``pkg_resources`` hidden, which is pygame's own fallback for
      installs without setuptools (open the file in pygame's directory); the game can still
      import ``pkg_resources`` itself;
    * numpy's global generator is seeded the moment numpy is imported, whoever imports it, so
      the game draws the same numbers as if numpy had been seeded at start.

    A row can turn this off with ``options.lazy_imports: false`` (then numpy is imported and
    seeded at start).
    """

    LAZY = ("pygame.surfarray", "pygame.sndarray")

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def find_spec(self, name: str, path=None, target=None):
        if name not in (*self.LAZY, "pygame.pkgdata", "numpy"):
            return None
        spec = None
        for finder in sys.meta_path:  # whoever would have found it without us
            if finder is not self and hasattr(finder, "find_spec"):
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        if name in self.LAZY:
            spec.loader = _DeferredBody(spec.loader)
        elif name == "pygame.pkgdata":
            spec.loader = _WithoutPkgResources(spec.loader)
        else:
            spec.loader = _SeedAfterExec(spec.loader, self.seed)
        return spec
