"""Test program for the native runtime: a window that starts the way desktop games do.

Two habits of real games killed them at start in the sandbox, and this program has both, each
behind a flag:

``--shm``
    Like Xlib games (ballz, kraptor), it asks the server for the MIT-SHM extension and, when the
    server has it, attaches a shared-memory segment with no error handler of its own. A server
    outside the game's IPC namespace cannot reach the segment and answers BadAccess, and Xlib's
    default handler ends the program before any window shows.
``--bus``
    Like KDE games (kollision), it will not start without a D-Bus session bus it can connect to.
``--first-run``
    Like adonthell or nestopia on a fresh account, it makes its own folders in the XDG base
    folders with a single mkdir each, and quits when a base folder is missing.
``--setup-then-quit``
    Like games that write a default configuration on their very first start and quit, it
    exits with code 2 when its settings file is not in HOME yet, having written it; started
    again in the same home it plays.

It then shows a window (pygame on SDL's x11 driver) and writes what it found to
$HOME/state.json; "q" quits.
"""

import ctypes
import json
import os
import socket
import sys

import pygame

IPC_PRIVATE, IPC_CREAT, IPC_RMID = 0, 0o1000, 0


class ShmSegmentInfo(ctypes.Structure):
    _fields_ = [
        ("shmseg", ctypes.c_ulong),
        ("shmid", ctypes.c_int),
        ("shmaddr", ctypes.c_void_p),
        ("readOnly", ctypes.c_int),
    ]


def attach_shared_memory() -> str:
    xlib = ctypes.CDLL("libX11.so.6")
    xext = ctypes.CDLL("libXext.so.6")
    libc = ctypes.CDLL(None, use_errno=True)
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    xext.XShmQueryExtension.argtypes = [ctypes.c_void_p]
    xext.XShmAttach.argtypes = [ctypes.c_void_p, ctypes.POINTER(ShmSegmentInfo)]
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    display = xlib.XOpenDisplay(None)
    if not xext.XShmQueryExtension(display):
        return "absent"
    info = ShmSegmentInfo()
    info.shmid = libc.shmget(IPC_PRIVATE, 1 << 16, IPC_CREAT | 0o600)
    info.shmaddr = libc.shmat(info.shmid, None, 0)
    try:
        xext.XShmAttach(display, ctypes.byref(info))
        xlib.XSync(display, 0)  # the server's BadAccess arrives here and Xlib exits
    finally:
        libc.shmctl(info.shmid, IPC_RMID, None)
    return "attached"


def session_bus() -> str:
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "")
    for part in address.split(";"):
        kind, _, rest = part.partition(":")
        keys = dict(kv.split("=", 1) for kv in rest.split(",") if "=" in kv)
        if kind != "unix":
            continue
        path = keys.get("path") or ("\0" + keys["abstract"] if "abstract" in keys else "")
        if path:
            with socket.socket(socket.AF_UNIX) as conn:
                conn.connect(path)
            return address
    print("DBus session bus not found", file=sys.stderr)
    sys.exit(1)


def first_run() -> list[str]:
    made = []
    for base in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        folder = os.path.join(os.environ[base], "desktop-window")
        try:
            os.mkdir(folder)
        except FileNotFoundError:
            print(f"Failed to create {folder}", file=sys.stderr)
            sys.exit(1)
        made.append(folder)
    return made


def settings() -> str:
    path = os.path.join(os.environ["HOME"], ".desktop-window.conf")
    if not os.path.exists(path):
        with open(path, "w") as fh:
            fh.write("difficulty = normal\n")
        print("wrote a default configuration; start the game again", file=sys.stderr)
        sys.exit(2)
    return path


state = {}
if "--setup-then-quit" in sys.argv:
    state["settings"] = settings()
if "--first-run" in sys.argv:
    state["made"] = first_run()
if "--shm" in sys.argv:
    state["shm"] = attach_shared_memory()
if "--bus" in sys.argv:
    state["bus"] = session_bus()
pygame.init()
screen = pygame.display.set_mode((320, 240))
pygame.display.set_caption("desktop window")
with open(os.path.join(os.environ["HOME"], "state.json"), "w") as fh:
    json.dump(state, fh)
clock = pygame.time.Clock()
frame = 0
while True:
    for event in pygame.event.get():
        if event.type == pygame.KEYDOWN and pygame.key.name(event.key) == "q":
            sys.exit(0)
    frame += 1
    screen.fill((40, 40, 40))
    pygame.draw.rect(screen, (200, 180, 40), (frame % 300, 100, 20, 20))
    pygame.display.flip()
    clock.tick(30)
