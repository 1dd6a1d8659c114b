#!/usr/bin/env bash
# Installs everything PlaySuite needs on a fresh Debian 12 machine; safe to run again.
#   - system packages: sandbox (bubblewrap), virtual display (Xvfb, xdotool), Chromium for the
#     browser runtime, Debian's python3-pygame for Debian-packaged games, libfaketime for native
#     games, and the libraries the native games link against;
#   - a virtual environment in .venv with the playsuite package (editable) and its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  bubblewrap xvfb xdotool x11-utils xauth chromium fonts-dejavu-core
  python3 python3-pygame python3-numpy python3-opengl python3-venv faketime
  libgl1-mesa-dri mesa-utils
  # libraries and fonts of Debian games acquired with dpkg -x (not installed): supertux, funnyboat
  fonts-dejavu fonts-nanum fonts-roboto-unhinted libboost-filesystem1.74.0 libcurl3-gnutls
  libglew2.2 libopenal1 libphysfs1 libraqm0 libsdl2-2.0-0 libsdl2-image-2.0-0 libvorbisfile3
)

# npm fetches the browser games (`npm pack`); any Node.js install will do, Debian's if none.
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(npm)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: need root to install: ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.playsuite-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e '.[test]'
  touch "$stamp"
fi
echo "setup: ready (.venv)"
