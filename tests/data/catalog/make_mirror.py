"""Regenerate the sample archive mirror (tests/data/catalog/mirror/) used by the sample dumps.

The archives are committed; run this only to change them:
    .venv/bin/python tests/data/catalog/make_mirror.py
Output is byte-for-byte reproducible (fixed timestamps, gzip mtime 0). The small games are real:
the web games are playable canvas pages, the PyWeek games are pygame programs with the PyWeek
``run_game.py`` layout, and the Linux build is a small X11 game compiled from C (regenerating
needs gcc and libx11-dev) behind a launcher script. Two games are broken the way real uploads
are, so that the launch dry-run has real failures: Crashy's script throws before its first frame
(the page stays blank), and Fallout Shelter Sprint opens ``data/Map.txt`` while the archive holds
``data/map.txt`` (made on a case-insensitive file system; it dies before opening a window).
"""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIRROR = HERE / "mirror"
STAMP = (2024, 5, 1, 12, 0, 0)
EPOCH = 1714564800

WEB_GAME = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>body{{margin:0;background:#111}}canvas{{display:block;margin:auto}}</style></head>
<body><canvas id="c" width="640" height="480"></canvas>
<script src="game.js"></script></body></html>
"""
WEB_JS = """// {title}: move with the arrow keys (or click to steer), collect the dots.
const c = document.getElementById('c'), g = c.getContext('2d');
let p = {{x: 320, y: 240}}, dot = {{x: 100, y: 100}}, score = 0, keys = {{}}, goal = null;
addEventListener('keydown', e => keys[e.key] = true);
addEventListener('keyup', e => keys[e.key] = false);
c.addEventListener('click', e => goal = {{x: e.offsetX, y: e.offsetY}});
function step() {{
  const v = 4;
  if (keys.ArrowLeft) p.x -= v; if (keys.ArrowRight) p.x += v;
  if (keys.ArrowUp) p.y -= v; if (keys.ArrowDown) p.y += v;
  if (goal) {{ p.x += Math.sign(goal.x - p.x) * Math.min(v, Math.abs(goal.x - p.x));
              p.y += Math.sign(goal.y - p.y) * Math.min(v, Math.abs(goal.y - p.y)); }}
  if (Math.hypot(p.x - dot.x, p.y - dot.y) < 16) {{
    score++; dot = {{x: 40 + (score * 137) % 560, y: 40 + (score * 89) % 400}};
  }}
  g.fillStyle = '#111'; g.fillRect(0, 0, 640, 480);
  g.fillStyle = '{color}'; g.fillRect(p.x - 10, p.y - 10, 20, 20);
  g.fillStyle = '#ff0'; g.beginPath(); g.arc(dot.x, dot.y, 6, 0, 7); g.fill();
  g.fillStyle = '#fff'; g.font = '20px monospace'; g.fillText('{title}  score ' + score, 10, 24);
  requestAnimationFrame(step);
}}
step();
"""
PYGAME_RUN = '''"""PyWeek layout: run_game.py starts the game package."""
from game.main import main

main()
'''
PYGAME_MAIN = '''"""{title}: move with the arrow keys, collect the dots; Escape quits."""
import pygame


def main():
    pygame.init()
    screen = pygame.display.set_mode((640, 480))
    pygame.display.set_caption("{title}")
    clock = pygame.time.Clock()
    font = pygame.font.Font(None, 28)
    x, y, score, dot = 320, 240, 0, (100, 100)
    while True:
        for event in pygame.event.get():
            if event.type == pygame.QUIT or (
                event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE
            ):
                pygame.quit()
                return
        keys = pygame.key.get_pressed()
        x += 4 * (keys[pygame.K_RIGHT] - keys[pygame.K_LEFT])
        y += 4 * (keys[pygame.K_DOWN] - keys[pygame.K_UP])
        if abs(x - dot[0]) < 16 and abs(y - dot[1]) < 16:
            score += 1
            dot = (40 + score * 137 % 560, 40 + score * 89 % 400)
        screen.fill((17, 17, 17))
        pygame.draw.rect(screen, {color}, (x - 10, y - 10, 20, 20))
        pygame.draw.circle(screen, (255, 255, 0), dot, 6)
        screen.blit(font.render(f"score {{score}}", True, (255, 255, 255)), (10, 10))
        pygame.display.flip()
        clock.tick(30)
'''
NATIVE_START = """#!/bin/sh
# Launcher: run the game binary from its own directory.
cd "$(dirname "$0")"
exec ./bin/star-courier "$@"
"""
NATIVE_SOURCE = r"""/* Star Courier: arrow keys fly the courier, X shoots rocks, collect parcels. */
#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define W 640
#define H 480
#define ROCKS 6

static unsigned lcg = 1;
static int rnd(int n) { lcg = lcg * 1103515245u + 12345u; return (int)((lcg >> 16) % (unsigned)n); }
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}
static int hit(double ax, double ay, double bx, double by, double r) {
  return (ax - bx) * (ax - bx) + (ay - by) * (ay - by) < r * r;
}

int main(void) {
  Display *d = XOpenDisplay(NULL);
  if (!d) { fprintf(stderr, "star-courier: cannot open display\n"); return 1; }
  int s = DefaultScreen(d);
  Window win = XCreateSimpleWindow(d, RootWindow(d, s), 0, 0, W, H, 0, 0, 0);
  XClassHint hint = {"star-courier", "StarCourier"};
  XSetClassHint(d, win, &hint);
  XStoreName(d, win, "Star Courier");
  XSelectInput(d, win, KeyPressMask | KeyReleaseMask | ExposureMask);
  XkbSetDetectableAutoRepeat(d, True, NULL);
  Atom close_atom = XInternAtom(d, "WM_DELETE_WINDOW", False);
  XSetWMProtocols(d, win, &close_atom, 1);
  XMapWindow(d, win);
  Pixmap buf = XCreatePixmap(d, win, W, H, (unsigned)DefaultDepth(d, s));
  GC gc = XCreateGC(d, buf, 0, NULL);
  double x = W / 2, y = H - 60, rx[ROCKS], ry[ROCKS], rv[ROCKS], sx = 0, sy = -1, px, py;
  int left = 0, right = 0, up = 0, down = 0, fire = 0, score = 0, i;
  for (i = 0; i < ROCKS; i++) { rx[i] = rnd(W); ry[i] = rnd(H / 2); rv[i] = 40 + rnd(80); }
  px = 60 + rnd(W - 120); py = 60 + rnd(H / 2);
  double last = now();
  for (;;) {
    while (XPending(d)) {
      XEvent e;
      XNextEvent(d, &e);
      if (e.type == ClientMessage) return 0;
      if (e.type != KeyPress && e.type != KeyRelease) continue;
      int on = e.type == KeyPress;
      KeySym k = XLookupKeysym(&e.xkey, 0);
      if (k == XK_Left) left = on;
      if (k == XK_Right) right = on;
      if (k == XK_Up) up = on;
      if (k == XK_Down) down = on;
      if (k == XK_x || k == XK_space) fire = on;
      if (k == XK_Escape && on) return 0;
    }
    double t = now(), dt = t - last;
    last = t;
    if (dt > 0.1) dt = 0.1;
    x += 220 * dt * (right - left);
    y += 220 * dt * (down - up);
    if (x < 12) x = 12;
    if (x > W - 12) x = W - 12;
    if (y < 40) y = 40;
    if (y > H - 12) y = H - 12;
    if (fire && sy < 0) { sx = x; sy = y - 14; }
    if (sy >= 0) sy -= 420 * dt;
    for (i = 0; i < ROCKS; i++) {
      ry[i] += rv[i] * dt;
      if (sy >= 0 && hit(sx, sy, rx[i], ry[i], 16)) { score++; sy = -1; ry[i] = H + 99; }
      if (ry[i] > H + 20) { rx[i] = rnd(W); ry[i] = -20; rv[i] = 40 + rnd(80); }
    }
    if (hit(x, y, px, py, 20)) { score += 5; px = 60 + rnd(W - 120); py = 60 + rnd(H / 2); }
    XSetForeground(d, gc, 0x0b0b20);
    XFillRectangle(d, buf, gc, 0, 0, W, H);
    XSetForeground(d, gc, 0x888899);
    for (i = 0; i < ROCKS; i++)
      XFillArc(d, buf, gc, (int)rx[i] - 12, (int)ry[i] - 12, 24, 24, 0, 360 * 64);
    XSetForeground(d, gc, 0xffd040);
    XFillRectangle(d, buf, gc, (int)px - 8, (int)py - 8, 16, 16);
    XSetForeground(d, gc, 0x40e0ff);
    XPoint ship[3] = {{(short)x, (short)(y - 14)},
                      {(short)(x - 11), (short)(y + 10)},
                      {(short)(x + 11), (short)(y + 10)}};
    XFillPolygon(d, buf, gc, ship, 3, Convex, CoordModeOrigin);
    if (sy >= 0) {
      XSetForeground(d, gc, 0xffffff);
      XFillRectangle(d, buf, gc, (int)sx - 2, (int)sy - 6, 4, 12);
    }
    char text[64];
    snprintf(text, sizeof text, "STAR COURIER   parcels+rocks %d", score);
    XSetForeground(d, gc, 0xffffff);
    XDrawString(d, buf, gc, 10, 20, text, (int)strlen(text));
    XCopyArea(d, buf, win, gc, 0, 0, W, H, 0, 0);
    XFlush(d);
    usleep(16000);
  }
}
"""


CRASHY_JS = """// Crashy: tap Space on the beat. Uses an audio helper that was never shipped.
const c = document.getElementById('c'), g = c.getContext('2d');
const beat = window.beatClock.start(120);  // beatClock is undefined: TypeError, nothing drawn
function step() {{
  g.fillStyle = '#222'; g.fillRect(0, 0, 640, 480);
  g.fillStyle = beat.onBeat() ? '#f44' : '#622'; g.fillRect(300, 220, 40, 40);
  requestAnimationFrame(step);
}}
step();
"""
# Fallout Shelter Sprint was made on a case-insensitive file system: it opens data/Map.txt, the
# archive holds data/map.txt, and on Linux it dies at start-up before opening a window.
FALLOUT_MAIN = """\"\"\"Fallout Shelter Sprint: run to the shelter before the siren stops.\"\"\"
import os

import pygame

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def main():
    with open(os.path.join(DATA, "Map.txt")) as fh:
        rows = fh.read().split()
    pygame.init()
    screen = pygame.display.set_mode((640, 480))
    while True:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                return
        screen.fill((40, 40, 40))
        for j, row in enumerate(rows):
            for i, cell in enumerate(row):
                if cell == "#":
                    pygame.draw.rect(screen, (120, 120, 120), (i * 32, j * 32, 32, 32))
        pygame.display.flip()
        pygame.time.Clock().tick(30)
"""


def compile_native(source: str) -> bytes:
    """Build the Star Courier binary (needs gcc and libx11-dev, only when regenerating)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp, "star-courier.c"), Path(tmp, "star-courier")
        src.write_text(source)
        subprocess.run(
            ["gcc", "-O2", "-s", "-Wall", "-Werror", "-o", str(out), str(src), "-lX11"],
            check=True,
        )
        return out.read_bytes()


def write_zip(path: Path, files: dict[str, bytes | str], modes: dict[str, int] | None = None):
    modes = modes or {}
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=STAMP)
            info.create_system = 3
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100000 | modes.get(name, 0o644)) << 16
            zf.writestr(info, data)


def write_targz(path: Path, files: dict[str, bytes | str], modes: dict[str, int] | None = None):
    modes = modes or {}
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name, data in files.items():
            blob = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(blob), EPOCH, modes.get(name, 0o644)
            info.uname = info.gname = "game"
            tf.addfile(info, io.BytesIO(blob))
    with open(path, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
        gz.write(raw.getvalue())


def web(title: str, color: str, extra: dict[str, bytes | str] | None = None) -> dict:
    files: dict[str, bytes | str] = {
        "index.html": WEB_GAME.format(title=title),
        "game.js": WEB_JS.format(title=title, color=color),
    }
    files.update(extra or {})
    return files


def pyweek(title: str, color: tuple[int, int, int]) -> dict:
    return {
        "run_game.py": PYGAME_RUN,
        "game/__init__.py": "",
        "game/main.py": PYGAME_MAIN.format(title=title, color=color),
        "README.txt": f"{title}\n\nArrow keys move, Escape quits. Needs Python 3 and pygame.\n",
    }


def pe_stub() -> bytes:
    head = bytearray(256)
    head[0:2], head[60:64], head[128:132] = b"MZ", (128).to_bytes(4, "little"), b"PE\x00\x00"
    return bytes(head)


def main() -> None:
    if MIRROR.exists():
        shutil.rmtree(MIRROR)
    itch, pw = MIRROR / "itch", MIRROR / "pyweek"
    write_zip(itch / "neon-drift.zip", web("Neon Drift", "#0ff"))
    write_zip(itch / "crate-stacker.zip", web("Crate Stacker", "#c84"))
    write_zip(itch / "quiet-room.zip", web("Quiet Room", "#88f"))
    write_zip(itch / "old-favourite.zip", web("Old Favourite", "#4c4"))
    write_zip(itch / "crashy.zip", {**web("Crashy", "#f44"), "game.js": CRASHY_JS.format()})
    write_zip(itch / "built-with-construct.zip", web("Built with Construct", "#fa0"))
    write_zip(
        itch / "letters-home.zip",
        web("Letters Home", "#fcf", {"windows/LettersHome.exe": pe_stub()}),
    )
    write_zip(
        itch / "construct-jumper.zip",
        web("Construct Jumper", "#aaa", {"scripts/c3runtime.js": "// Construct 3 runtime\n"}),
    )
    write_zip(itch / "gift.zip", web("Gift", "#f0f", {"../../.bashrc": "echo owned\n"}))
    # a download cut off halfway: the zip's central directory never arrived
    broken = itch / "broken-download.zip"
    write_zip(broken, web("Broken Download", "#999", {"music.ogg": bytes(range(256)) * 64}))
    data = broken.read_bytes()
    broken.write_bytes(data[: len(data) // 2])
    elf = compile_native(NATIVE_SOURCE)
    write_targz(
        itch / "star-courier-linux.tar.gz",
        {
            "star-courier/start.sh": NATIVE_START,
            "star-courier/bin/star-courier": elf,
            "star-courier/data/levels.txt": "1 2 3\n",
        },
        {"star-courier/start.sh": 0o755, "star-courier/bin/star-courier": 0o755},
    )
    write_targz(pw / "pw35-clockwork.tar.gz", pyweek("Clockwork Keeper", (200, 160, 60)))
    write_targz(pw / "pw32-drift.tar.gz", pyweek("Ice Drift", (120, 200, 255)))
    fallout = pyweek("Fallout Shelter Sprint", (255, 80, 80))
    fallout["game/main.py"] = FALLOUT_MAIN
    fallout["data/map.txt"] = "####....####\n#..........#\n####....####\n"
    write_targz(pw / "pw31-fallout.tar.gz", fallout)


if __name__ == "__main__":
    main()
