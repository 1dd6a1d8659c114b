"""The dpkg triggers a Debian game needs that unpacking with ``dpkg -x`` does not run.

Installing a package runs triggers that build caches from what every installed package ships;
an acquired game is unpacked, not installed, so its caches are missing. The one games trip over
is GSettings: a GTK game aborts at start ("Settings schema ... is not installed") unless its
``*.gschema.xml`` is compiled into ``gschemas.compiled``. GLib reads one compiled file per
directory, and the game's ``files/usr`` is laid over the host's ``/usr`` in the sandbox, so the
game's file must hold the host's schemas and its dependencies' too: all three go into one
compilation whose output lands in the game's own tree (it shadows the host's file there only).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import IO

from playsuite.processes import probe
from playsuite.runtimes.fetchers.common import AcquisitionError

SCHEMAS = Path("usr/share/glib-2.0/schemas")
COMPILED = "gschemas.compiled"
HOST_ROOT = Path("/")


def _schema_files(tree: Path) -> list[Path]:
    folder = tree / SCHEMAS
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.iterdir()
        if p.name.endswith((".gschema.xml", ".enums.xml", ".gschema.override"))
    )


def compile_gsettings_schemas(
    files: Path, layers: list[Path], log: IO[str] | None, host_root: Path = HOST_ROOT
) -> list[str]:
    """Compile the schemas of ``files``, ``layers`` (the game's dependencies) and the host into
    ``files/usr/share/glib-2.0/schemas/gschemas.compiled`` when the game or a dependency ships a
    schema; the names of the triggers run (``[]`` when none was needed)."""
    own = _schema_files(files) + [p for layer in layers for p in _schema_files(layer)]
    if not any(p.name.endswith(".gschema.xml") for p in own):
        return []
    with tempfile.TemporaryDirectory(prefix="gschemas-") as tmp:
        # Later trees win a name clash: the host's, then the dependencies', then the game's.
        for source in [host_root, *reversed(layers), files]:
            for path in _schema_files(source):
                link = Path(tmp) / path.name
                link.unlink(missing_ok=True)
                link.symlink_to(path.resolve())
        target = files / SCHEMAS
        target.mkdir(parents=True, exist_ok=True)
        done = probe(["glib-compile-schemas", f"--targetdir={target}", tmp])
        if done is None:
            raise AcquisitionError(
                "the game ships GSettings schemas and glib-compile-schemas is not installed "
                "(Debian package libglib2.0-bin)"
            )
        if log is not None:
            log.write(f"$ glib-compile-schemas --targetdir={target}\n{done.stdout}{done.stderr}")
        if done.returncode != 0:
            raise AcquisitionError(f"glib-compile-schemas failed: {done.stderr.strip()[:300]}")
    return ["glib-compile-schemas"]
