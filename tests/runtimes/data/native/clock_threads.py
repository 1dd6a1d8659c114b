"""Test program for the native runtime's clock: threads that read the monotonic clock as fast as
they can (through ctypes, so they really run at once) beside an ordinary pygame window.

Each read of the faked clock (libc's ``clock_gettime``, which the preloaded guard and libfaketime
answer) sits between two reads of the kernel's own clock (the raw system call, which nothing
preloaded sees). So every faked step can be held against the real time around it: it may never
be longer than that span (a read of the unfaked time would be), never negative, and across a
stop it must leave the stop out. $HOME/state.json keeps, per thread, the number of reads, the
largest backward step, the largest excess of a faked step over its real span, and the steps
whose real span was long (a stop or a starved thread) with their real bounds, for the test to
check against the stops it made.
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
SYS_CLOCK_GETTIME = 228  # x86_64
THREADS = 3
LONG_S = 0.3  # a real span this long is kept for the test
stats = [{"reads": 0, "backward": 0.0, "excess": 0.0, "long": []} for _ in range(THREADS)]


def hammer(mine: dict) -> None:
    ts = Timespec()
    faked = libc.clock_gettime
    kernel = libc.syscall

    def read() -> tuple[float, float, float]:
        """(kernel time before, faked time, kernel time after)"""
        kernel(SYS_CLOCK_GETTIME, CLOCK_MONOTONIC, ctypes.byref(ts))
        before = ts.sec + ts.nsec / 1e9
        faked(CLOCK_MONOTONIC, ctypes.byref(ts))
        now = ts.sec + ts.nsec / 1e9
        kernel(SYS_CLOCK_GETTIME, CLOCK_MONOTONIC, ctypes.byref(ts))
        return before, now, ts.sec + ts.nsec / 1e9

    last = read()
    while True:
        for _ in range(200):  # ctypes lets go of the GIL in each call: threads read at once
            cur = read()
            step = cur[1] - last[1]
            span = cur[2] - last[0]  # the most real time the two faked reads can be apart
            if step - span > mine["excess"]:
                mine["excess"] = step - span
            if -step > mine["backward"]:
                mine["backward"] = -step
            if span > LONG_S and len(mine["long"]) < 200:
                # real bounds: earliest and latest first read, earliest and latest second read
                mine["long"].append([last[0], last[2], cur[0], cur[2], step])
            last = cur
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
