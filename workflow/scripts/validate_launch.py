"""Rule validate_launch: an acquired game renders non-blank frames and reacts to input."""

import json
import shutil
import tempfile
from pathlib import Path

from playsuite.corpus import find_game, load_corpus
from playsuite.files import write_json_atomic
from playsuite.runtimes.validate import validate_launch

game = find_game(load_corpus(snakemake.input.catalog), snakemake.wildcards.game)
files = Path(snakemake.input.acquired).parent / "files"
workdir = Path(tempfile.mkdtemp(prefix=f"validate-{game.id}-"))
try:
    result = validate_launch(game, files, workdir)
finally:
    logs = sorted(workdir.rglob("game.log"))
    with open(snakemake.log[0], "w") as log:
        for path in logs:
            log.write(f"== {path.relative_to(workdir)}\n{path.read_text(errors='replace')}\n")
    shutil.rmtree(workdir, ignore_errors=True)
print(json.dumps(result))
write_json_atomic(snakemake.output[0], result)
