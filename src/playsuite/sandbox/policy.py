"""What a sandboxed game may see and do, independent of the tool that enforces it.

One :class:`SandboxPolicy` describes a run's isolation: the system files it may read, the game
files (read-only), one private writable scratch directory that holds HOME, the environment, and
whether it gets a network or an X display. Backends (:mod:`playsuite.sandbox.bwrap`,
:mod:`playsuite.sandbox.apptainer`) translate the same policy into their command lines, so a
cluster run and a laptop run enforce the same rules.

Inside every sandbox the layout is fixed (see ``docs/runtimes.md``):

``/game``     the acquired game files, read-only
``/scratch``  this run's private writable directory; ``HOME`` is ``/scratch/home``
``/tmp``      private, empty, in memory
``/usr``      the host's system files, read-only (plus a short list of ``/etc`` entries), with
             the policy's ``usr_layers`` (a Debian game's packages) laid over them

Nothing else of the host is visible: not the repository, not other runs, not ``/root``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

GAME_DIR = "/game"
SCRATCH_DIR = "/scratch"
HOME_DIR = "/scratch/home"
#: The XDG base folders a desktop account already has (host paths under the scratch). Games make
#: their own folder inside one with a single mkdir on first start and quit when the parent is
#: missing (adonthell, nestopia, cataclysm-dda: "Failed to create ~/.local/share/...").
HOME_FOLDERS = ("home/.config", "home/.local/share", "home/.local/state", "home/.cache")
TMP_DIR = "/tmp"
X11_SOCKET_DIR = "/tmp/.X11-unix"
SANDBOX_UID = 1000
SANDBOX_GID = 1000
SANDBOX_USER = "player"

#: Host system directories every sandbox reads (read-only). On merged-/usr systems the top-level
#: ``/bin``, ``/lib``... are symlinks and are recreated as symlinks inside.
SYSTEM_DIRS: tuple[str, ...] = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")

#: ``/etc`` entries games, Python, Mesa, fonts and Chromium read. Everything else in ``/etc``
#: (shadow files, ssh keys, package manager credentials) stays invisible. Missing ones are skipped.
ETC_ENTRIES: tuple[str, ...] = (
    "alternatives",
    "ca-certificates",
    "chromium",
    "chromium.d",
    "debian_version",
    "drirc",
    "fonts",
    "glvnd",
    "gtk-3.0",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "localtime",
    "machine-id",
    "magic",
    "mime.types",
    "nsswitch.conf",
    "openal",
    "os-release",
    "pulse",
    "python3",
    "python3.11",
    "ssl",
    "timezone",
    "vulkan",
    "X11",
    "xdg",
)

#: Host cache directories that only speed things up (read-only, optional).
OPTIONAL_RO_DIRS: tuple[str, ...] = ("/var/cache/fontconfig",)

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Bind:
    """A host path made visible at ``target`` inside the sandbox."""

    source: Path
    target: str
    writable: bool = False
    optional: bool = False  # skip silently when ``source`` does not exist

    def __post_init__(self) -> None:
        if not self.target.startswith("/"):
            raise ValueError(f"bind target must be absolute, got {self.target!r}")
        object.__setattr__(self, "source", Path(self.source))


@dataclass(frozen=True)
class SandboxPolicy:
    """Isolation rules for one run. Build with :func:`game_policy` for the usual case.

    ``scratch`` is a host directory owned by this run; it is the only writable place (besides
    the in-memory ``/tmp`` and ``/dev/shm``). ``binds`` adds read-only (or, rarely, writable) host
    paths such as the game files. ``network=False`` leaves only a loopback interface that nothing
    outside can reach. ``x11_display`` (``":3"``) binds that display's socket for native games.
    """

    scratch: Path
    binds: tuple[Bind, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    network: bool = False
    x11_display: str | None = None
    share_sys: bool = False  # /sys read-only (Chromium and Mesa probe it; games do not need it)
    cwd: str = SCRATCH_DIR
    hostname: str = "playsuite"
    #: Host trees laid over ``/usr``, top first (a game's packages and their dependencies at the
    #: paths they were built for); the host's ``/usr`` stays the bottom layer.
    usr_layers: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "scratch", Path(self.scratch).absolute())
        object.__setattr__(self, "env", dict(self.env))
        object.__setattr__(self, "usr_layers", tuple(Path(p).absolute() for p in self.usr_layers))
        if self.x11_display is not None:
            display_number(self.x11_display)  # validates

    def with_binds(self, *binds: Bind) -> SandboxPolicy:
        return replace(self, binds=self.binds + tuple(binds))

    def with_env(self, **env: str) -> SandboxPolicy:
        return replace(self, env={**self.env, **env})

    @property
    def home(self) -> Path:
        """HOME of the sandboxed process, as a host path."""
        return self.scratch / "home"

    def environment(self) -> dict[str, str]:
        """The complete environment inside: nothing leaks from the harness's own."""
        env = {
            "PATH": DEFAULT_PATH,
            "HOME": HOME_DIR,
            "USER": SANDBOX_USER,
            "LOGNAME": SANDBOX_USER,
            "TMPDIR": TMP_DIR,
            "LANG": "C.UTF-8",
            "XDG_CONFIG_HOME": f"{HOME_DIR}/.config",
            "XDG_DATA_HOME": f"{HOME_DIR}/.local/share",
            "XDG_CACHE_HOME": f"{HOME_DIR}/.cache",
            "XDG_STATE_HOME": f"{HOME_DIR}/.local/state",
            "XDG_RUNTIME_DIR": f"{SCRATCH_DIR}/run",
            # Mesa keeps its shader cache under the passwd home unless told otherwise.
            "MESA_SHADER_CACHE_DIR": f"{HOME_DIR}/.cache/mesa",
            "SDL_AUDIODRIVER": "dummy",
            "ALSOFT_DRIVERS": "null",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        if self.x11_display is not None:
            env["DISPLAY"] = self.x11_display
        env.update(self.env)
        return env

    def prepare_scratch(self) -> None:
        """Create the scratch layout (HOME, runtime dir, passwd/group) on the host side."""
        for sub in ("home", *HOME_FOLDERS, "run", ".sandbox"):
            (self.scratch / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(self.scratch / "run", 0o700)
        etc = self.scratch / ".sandbox"
        (etc / "passwd").write_text(
            f"root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
            f"{SANDBOX_USER}:x:{SANDBOX_UID}:{SANDBOX_GID}:PlaySuite game:{HOME_DIR}:/bin/sh\n"
            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
            encoding="utf-8",
        )
        (etc / "group").write_text(
            f"root:x:0:\n{SANDBOX_USER}:x:{SANDBOX_GID}:\nnogroup:x:65534:\n", encoding="utf-8"
        )

    def x11_socket(self) -> Path | None:
        if self.x11_display is None:
            return None
        return Path(X11_SOCKET_DIR) / f"X{display_number(self.x11_display)}"


def display_number(display: str) -> int:
    """``":3"`` or ``":3.0"`` -> 3; only local displays can be shared with a sandbox."""
    text = display.strip()
    if not text.startswith(":"):
        raise ValueError(f"only local X displays (':N') can be shared with a sandbox: {display!r}")
    try:
        return int(text[1:].split(".")[0])
    except ValueError:
        raise ValueError(f"not an X display: {display!r}") from None


def game_policy(
    scratch: str | os.PathLike[str],
    game_dir: str | os.PathLike[str] | None,
    *,
    env: Mapping[str, str] | None = None,
    x11_display: str | None = None,
    extra_binds: tuple[Bind, ...] = (),
    cwd: str | None = None,
    usr_layers: tuple[Path, ...] = (),
) -> SandboxPolicy:
    """The usual policy: the game read-only at ``/game``, scratch at ``/scratch``, no network."""
    binds: list[Bind] = []
    if game_dir is not None:
        binds.append(Bind(Path(game_dir).absolute(), GAME_DIR))
    binds.extend(extra_binds)
    return SandboxPolicy(
        scratch=Path(scratch),
        binds=tuple(binds),
        env=dict(env or {}),
        x11_display=x11_display,
        cwd=cwd or (GAME_DIR if game_dir is not None else SCRATCH_DIR),
        usr_layers=usr_layers,
    )
