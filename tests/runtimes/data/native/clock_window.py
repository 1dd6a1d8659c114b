"""Test program for the native runtime: an ordinary X11 window (pygame on SDL's x11 driver).

It draws a bar whose length follows its own monotonic clock and a square moved by the arrow
keys, and writes its state to $HOME/state.json every frame so a test can read what the program
itself saw: its clock (libfaketime must hide the stops), the keys and clicks that arrived. It
ignores SIGTERM (as some games do), exits with code 3 on "k" (a crash) and 0 on "q" (Quit).
On "g" it starts holding an X server grab for most of each frame (as GTK does for moments), so a
stop is likely to catch it holding one. On "w" it hands over to a copy of itself with a larger
window and closes its own, as games do that change video mode or start through a launcher
window; it then waits for the copy's exit.
"""

import ctypes
import json
import os
import signal
import subprocess
import sys
import time

import pygame

signal.signal(signal.SIGTERM, signal.SIG_IGN)
pygame.init()
BIG = "--big" in sys.argv
screen = pygame.display.set_mode((400, 300) if BIG else (320, 240))
pygame.display.set_caption("clock window")
t0 = time.monotonic()
state = {"t": 0.0, "x": 100.0, "keys": [], "clicks": 0, "max_gap": 0.0}
state_path = os.path.join(os.environ["HOME"], "state.json")


def read_state() -> dict:
    with open(state_path) as fh:
        return json.load(fh)


if BIG:  # the copy carries on with what the first window saw
    state.update(read_state())
last = t0
grabber = None  # a second X connection of the program's own, holding server grabs
while True:
    now = time.monotonic()
    dt, last = now - last, now
    state["max_gap"] = max(state["max_gap"], dt)  # a stop the clock did not hide shows here
    for event in pygame.event.get():
        if event.type == pygame.KEYDOWN:
            name = pygame.key.name(event.key)
            state["keys"].append(name)
            if name == "k":
                os._exit(3)
            if name == "q":
                os._exit(0)
            if name == "g" and grabber is None:
                xlib = ctypes.CDLL("libX11.so.6")
                xlib.XOpenDisplay.restype = ctypes.c_void_p
                for call in (xlib.XGrabServer, xlib.XUngrabServer, xlib.XFlush):
                    call.argtypes = [ctypes.c_void_p]
                grabber = xlib.XOpenDisplay(None)
            if name == "w" and not BIG:
                copy = subprocess.Popen([sys.executable, __file__, "--big"])
                while read_state().get("size") != [400, 300]:
                    time.sleep(0.05)  # the copy's window is up before this one goes
                pygame.display.quit()
                os._exit(copy.wait())
        elif event.type == pygame.MOUSEBUTTONDOWN:
            state["clicks"] += 1
    pressed = pygame.key.get_pressed()
    state["x"] += 100 * dt * (pressed[pygame.K_RIGHT] - pressed[pygame.K_LEFT])
    state["t"] = now - t0
    screen.fill((16, 32, 64))
    pygame.draw.rect(screen, (64, 192, 96), (int(state["x"]), 100, 20, 20))
    pygame.draw.rect(screen, (255, 255, 255), (0, 200, int(state["t"] * 40) % 320, 8))
    state["size"] = list(screen.get_size())
    pygame.display.flip()
    tmp = state_path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(state, fh)
    os.replace(tmp, state_path)
    if grabber is not None:  # nobody else's requests are served meanwhile
        xlib.XGrabServer(grabber)
        xlib.XFlush(grabber)
        time.sleep(0.05)
        xlib.XUngrabServer(grabber)
        xlib.XFlush(grabber)
    time.sleep(1 / 60)
