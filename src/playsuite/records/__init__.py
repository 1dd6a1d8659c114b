"""The on-disk contracts between stages, one module each, each the only place its format is spelled.

A stage writes a file that another stage (often another job, on another day, with another version
of playsuite) reads back. Each module here owns one such file: its names and fields, a writer
(atomic, playsuite.files) and a reader that checks what it reads and names the file when it is
not what the contract says. Every file carries a format version (``format``); a file written
before versions were recorded (none) reads as the first one, a newer version is refused rather
than guessed at.

- :mod:`playsuite.records.episode`: an episode directory (``meta.json``, ``trace.jsonl``, video).
- :mod:`playsuite.records.costs`: a job attempt's cost record (one-row TSV).
- :mod:`playsuite.records.manifest`: a play shard's manifest (one TSV row per episode).
- :mod:`playsuite.records.scores`: a judge's scores table.
- :mod:`playsuite.records.horizon`: multi-horizon annotations, their run index, the offline
  question set and a preset's answers.

This package imports only :mod:`playsuite.files`: every layer may use it.
"""
