"""How to start an acquired PyPI game: its declared script entry point, else its ``__main__``.

A PyPI project names its programs in the wheel's ``entry_points.txt`` (``gui_scripts`` and
``console_scripts``: ``name = module:function``); pip turns each into a launcher in
``venv/bin``, but that launcher's first line is the interpreter of the folder pip installed into,
which is not where the game runs (``/game``). So the entry is taken from the metadata instead:

* the pygame runtime runs ``module:function`` in its own process (a project without a script
  but with a ``package/__main__.py`` runs that file as a script);
* a native game runs the venv's interpreter, ``-c`` calling the function (or ``-m package``).

Which script: the one named after the project, else the only one (``gui_scripts`` before
``console_scripts``); several others are ambiguous and the game has no known entry. Old
projects install plain Python scripts into ``venv/bin`` instead (``scripts=`` in setup.py):
those are run as files, chosen the same way.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

from playsuite.runtimes.fetchers.common import VENV

_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*$")


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dist_info(files: Path, package: str) -> Path | None:
    """The ``.dist-info`` folder of ``package`` in an acquired game's venv."""
    want = _normalise(package)
    for folder in sorted(files.glob(f"{VENV}/lib/python*/site-packages/*.dist-info")):
        name = folder.name[: -len(".dist-info")].rsplit("-", 1)[0]
        if _normalise(name) == want:
            return folder
    return None


def scripts(info: Path) -> list[tuple[str, str]]:
    """``(name, module:function)`` of the declared scripts, GUI scripts first."""
    path = info / "entry_points.txt"
    if not path.is_file():
        return []
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text(encoding="utf-8"))
    out: list[tuple[str, str]] = []
    for section in ("gui_scripts", "console_scripts"):
        if parser.has_section(section):
            out += [(k, v.split("[")[0].strip()) for k, v in parser.items(section)]
    return out


def _choose(found: list[tuple[str, str]], package: str) -> str:
    named = [v for k, v in found if _normalise(k) == _normalise(package)]
    if named:
        return named[0]
    return found[0][1] if len(found) == 1 else ""


def _main_module(files: Path, info: Path) -> str:
    """The top-level package of the distribution that has a ``__main__.py``."""
    site = info.parent
    top = info / "top_level.txt"
    names = top.read_text(encoding="utf-8").split() if top.is_file() else []
    if not names:
        record = info / "RECORD"
        lines = record.read_text(encoding="utf-8").splitlines() if record.is_file() else []
        names = sorted({line.split("/", 1)[0] for line in lines if "/__main__.py," in line})
    for name in names:
        if (site / name / "__main__.py").is_file():
            return name
    return ""


def _data_scripts(info: Path) -> list[tuple[str, str]]:
    """``(name, venv path)`` of the Python scripts the wheel installs into ``venv/bin``
    (``scripts=`` of old setup.py files: ``../../../bin/skool_daze.py`` in ``RECORD``)."""
    record = info / "RECORD"
    lines = record.read_text(encoding="utf-8").splitlines() if record.is_file() else []
    out = []
    for line in lines:
        path = line.split(",", 1)[0]
        if path.startswith("../../../bin/"):
            name = path.rsplit("/", 1)[-1]
            bin_path = info.parent.parent.parent.parent / "bin" / name
            if not bin_path.is_file():
                continue
            with open(bin_path, "rb") as fh:
                first = fh.readline()
            if b"python" in first or name.endswith(".py"):
                out.append((name.removesuffix(".py"), f"{VENV}/bin/{name}"))
    return out


def pypi_entry(files: Path, package: str, runtime: str) -> tuple[str, tuple[str, ...]]:
    """``(entry, args)`` of an acquired PyPI game for ``runtime``; ``("", ())`` when unknown."""
    info = dist_info(files, package)
    if info is None:
        return "", ()
    target = _choose(scripts(info), package)
    module, _, function = target.partition(":")
    if target and not (_IDENTIFIER.match(module) and function.isidentifier()):
        target = ""  # ``module:object.method``: neither the host nor -c below calls that
    if target:
        if runtime == "pygame":
            return target, ()
        call = f"import sys; from {module} import {function}; sys.exit({function}())"
        return f"{VENV}/bin/python", ("-c", call)
    script = _choose(_data_scripts(info), package)
    if script:
        return (script, ()) if runtime == "pygame" else (f"{VENV}/bin/python", (f"/game/{script}",))
    main = _main_module(files, info)
    if not main:
        return "", ()
    if runtime == "pygame":
        script = (info.parent / main / "__main__.py").relative_to(files)
        return script.as_posix(), ()
    return f"{VENV}/bin/python", ("-m", main)
