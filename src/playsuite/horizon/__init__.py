"""Trajectories as data (GameHorizon, docs/horizon.md): an annotator that turns any episode into a
three-level instruction pyramid, and an offline track of multiple-choice questions built from
annotated episodes and answered by any preset through the served path.

- :mod:`.segment`: action-aware segmentation of a trace and the duration-bounded merge;
- :mod:`.prompts`: the annotation and question prompts (``config/prompts/horizon_*.txt``);
- :mod:`.media`: the frames a request shows, as images or one clip, within a preset's limits;
- :mod:`.annotate`: the annotator (short operations, medium goals, long strategy);
- :mod:`.questions`: the question set (T1 next action, T2 decomposition, T3 consistency);
- :mod:`.answer`: a preset answering the questions;
- :mod:`.tables`: accuracy with game-level bootstrap CIs, offline-online Spearman correlation;
- :mod:`.run`: server lifecycle around annotate / answer jobs.

The files are owned by :mod:`playsuite.records.horizon`.
"""
