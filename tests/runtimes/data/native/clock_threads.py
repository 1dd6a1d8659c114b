"""Test program for the native runtime's clock: threads that read the monotonic clock as fast as
they can (through ctypes, so they really run at once) beside an ordinary pygame window.

Every read is compared with the thread's previous one; $HOME/state.json keeps, per thread, the
largest step forward and backward its clock took, and the number of reads. Stopped and resumed
between slices with the clock faked right, no thread may see a step near the length of a stop.
"""

import ctypes
import json
import os
import threading
import time

import pygame

# the process's own symbol lookup (dlopen(NULL)): libraries preloaded in front of libc come first
libc = ctypes.CDLL(None, use_errno=True)


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


CLOCK_MONOTONIC = 1
THREADS = 3
stats = [{"reads": 0, "forward": 0.0, "backward": 0.0} for _ in range(THREADS)]


def hammer(mine: dict) -> None:
    ts = Timespec()
    read = libc.clock_gettime
    read(CLOCK_MONOTONIC, ctypes.byref(ts))
    last = ts.sec + ts.nsec / 1e9
    while True:
        for _ in range(200):  # ctypes lets go of the GIL in each call: threads read at once
            read(CLOCK_MONOTONIC, ctypes.byref(ts))
            now = ts.sec + ts.nsec / 1e9
            step, last = now - last, now
            if step > mine["forward"]:
                mine["forward"] = step
            if -step > mine["backward"]:
                mine["backward"] = -step
        mine["reads"] += 200


pygame.init()
screen = pygame.display.set_mode((320, 240))
pygame.display.set_caption("clock threads")
for mine in stats:
    threading.Thread(target=hammer, args=(mine,), daemon=True).start()
path = os.path.join(os.environ["HOME"], "state.json")
while True:
    pygame.event.get()
    screen.fill((16, 32, 64))
    pygame.draw.rect(screen, (255, 255, 255), (0, 200, int(time.monotonic() * 40) % 320, 8))
    pygame.display.flip()
    with open(path + ".tmp", "w") as fh:
        json.dump(stats, fh)
    os.replace(path + ".tmp", path)
    time.sleep(0.02)
