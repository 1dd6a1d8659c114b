"""envs/playsuite.yaml installs the package from the source tree even though Snakemake copies the
file into .snakemake/conda/ first.

conda cannot be installed on this machine (no conda channel is reachable), so a stand-in `conda`
does what `conda env create --file F --prefix P` does with an env file's `pip:` section: it writes
those lines to a requirements file in F's folder and runs pip from that folder (conda's pip
installer). Here pip only parses that file, with its own parser, from that folder: what it would
install is recorded, nothing is installed. Snakemake itself is
real: it copies the env file, calls the stand-in, and the Snakefile sets PLAYSUITE_SOURCE.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
TARGET = "results/tables/models.csv"  # one rule with `conda: envs/playsuite.yaml`

STANDIN_CONDA = """#!{python}
import json, os, sys
import yaml

args = sys.argv[1:]
if args == ["--version"]:
    print("conda 24.9.0")
elif args[:2] == ["info", "--json"]:
    print(json.dumps({{"conda_prefix": {prefix!r}, "platform": "linux-64"}}))
elif args[:1] == ["clean"]:
    pass  # Snakemake's tarball cleanup after a create
elif args[:2] == ["config", "--get"]:
    print(json.dumps({{"get": {{"channel_priority": "strict"}}}}))
elif args[:2] == ["env", "create"]:
    env_file = args[args.index("--file") + 1].strip('"')
    prefix = args[args.index("--prefix") + 1].strip('"')
    spec = yaml.safe_load(open(env_file))
    pip = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    folder = os.path.dirname(os.path.abspath(env_file))
    req = os.path.join(folder, "condaenv.requirements.txt")
    with open(req, "w") as fh:
        fh.write("\\n".join(pip) + "\\n")
    with open({log!r}, "a") as fh:
        fh.write(json.dumps({{"env_file": env_file, "prefix": prefix}}) + "\\n")
    os.chdir(folder)  # conda runs pip from the env file's folder
    from pip._internal.network.session import PipSession
    from pip._internal.req.constructors import parse_editable
    from pip._internal.req.req_file import parse_requirements
    parsed = list(parse_requirements(req, session=PipSession()))
    editables = [parse_editable(r.requirement)[1] for r in parsed if r.is_editable]
    constraints = sorted({{r.comes_from for r in parsed if r.constraint}})
    with open(prefix + ".pip.json", "w") as fh:
        json.dump({{"editables": editables, "constraints": constraints}}, fh)
    os.makedirs(os.path.join(prefix, "bin"), exist_ok=True)
else:
    sys.exit("stand-in conda: unexpected arguments %r" % (args,))
"""


def standin_conda(folder: Path) -> tuple[Path, Path]:
    """A `conda` on PATH that records each env creation in the returned log."""
    folder.mkdir()
    log = folder / "creates.jsonl"
    conda = folder / "conda"
    conda.write_text(STANDIN_CONDA.format(python=sys.executable, prefix=str(folder), log=str(log)))
    conda.chmod(0o755)
    return folder, log


def test_env_file_names_no_relative_path(repo: Path) -> None:
    """Every pip line is absolute once PLAYSUITE_SOURCE is expanded: nothing depends on where
    Snakemake puts its copy of the file."""
    spec = yaml.safe_load((repo / "envs" / "playsuite.yaml").read_text())
    pip = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    assert pip, "no pip section"
    for line in pip:
        path = line.split()[-1]
        assert path.startswith("${PLAYSUITE_SOURCE}"), line
    assert "-e ${PLAYSUITE_SOURCE}" in pip


@pytest.mark.slow
def test_snakemake_creates_the_env_from_the_source_tree(repo_copy: Path, tmp_path: Path) -> None:
    bindir, log = standin_conda(tmp_path / "bin")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PLAYSUITE_SOURCE", None)
    out = subprocess.run(
        [SNAKEMAKE, "--sdm", "conda", "--conda-create-envs-only", "--cores", "1", TARGET],
        cwd=repo_copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    creates = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(creates) == 1, creates
    # Snakemake made the env from its copy under .snakemake/conda/, not from envs/
    copied = Path(creates[0]["env_file"]).resolve()
    assert copied.parent == (repo_copy / ".snakemake" / "conda").resolve(), copied
    pip = json.loads(Path(creates[0]["prefix"] + ".pip.json").read_text())
    # pip, run where conda runs it, installs the package from the source tree, editable
    assert pip["editables"] == [repo_copy.resolve().as_uri()]
    lock = repo_copy.resolve() / "requirements.lock"
    assert pip["constraints"] and all(str(lock) in c for c in pip["constraints"])
