"""The offline track's question set, built from annotated episodes (GameHorizon §3.4).

Each question shows frames of one episode and offers four options, one right:

- ``T1``: the inputs the player sent during a short operation, given its frames and its
  instruction; ``T1-frames``: the same without the instruction (frames alone);
  ``T1-multi``: the same with the instructions of every horizon (strategy, goal, operation).
  ``T1-next``: future-action planning instead of current-action perception, the inputs of the
  operation that came next, given the frames of the one before it.
- ``T2``: top-down decomposition, the ordered operations that make up a medium-horizon goal
  (wrong options: the same operations in another order, or with one swapped for an operation
  from elsewhere). ``T2-up``: bottom-up abstraction, the goal that an ordered list of operations
  serves.
- ``T3``: cross-horizon consistency, the strategy, goal, operation and inputs that belong
  together at the moment the frames show (wrong options: one level taken from elsewhere);
  ``T3-text``: the same with instructions only, no inputs, which separates a model that cannot
  plan the goals from one that cannot decode the inputs.

The ``-`` variants are GameHorizon's diagnostic tasks (T*, §3.4) beside the three primary ones.

Wrong options come from the same game's other annotations (its other operations, inputs,
goals); a game with too few falls back to the other games of the set, and the question records
which (``distractors``). A question with fewer than three distinct wrong options is skipped and
counted. Everything random is drawn from generators seeded by the set's seed and the question's
id, so the set is the same for the same annotations whatever order they are given in.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playsuite.records.horizon import HORIZON_FORMAT, TASKS, annotation_path, read_annotation

LETTERS = "ABCD"


@dataclass(frozen=True)
class Annotated:
    """One ok annotation and the episode directory it describes."""

    episode: str
    doc: dict[str, Any]

    @property
    def game(self) -> str:
        return self.doc["episode"]["game"] or Path(self.episode).name

    @property
    def key(self) -> str:
        e = self.doc["episode"]
        return "/".join(e[k] for k in ("corpus", "preset", "condition", "game"))


def load_annotated(paths: Iterable[str | Path]) -> tuple[list[Annotated], int]:
    """The ok annotations among ``paths`` (episode directories or their horizon.json), sorted by
    episode, and how many were failed ones (left out)."""
    out, failed = [], 0
    for path in paths:
        file = annotation_path(path)
        doc = read_annotation(file)
        if doc["status"] != "ok":
            failed += 1
            continue
        out.append(Annotated(str(file.parent), doc))
    return sorted(out, key=lambda a: (a.key, a.episode)), failed


def _actions(op: dict[str, Any]) -> str:
    return " ; ".join(op["actions"])


def _numbered(items: Sequence[str]) -> str:
    return " | ".join(f"({i + 1}) {text}" for i, text in enumerate(items))


def _t3(strategy: str, goal: str, op: str, actions: str | None = None) -> str:
    text = f"Strategy: {strategy} || Goal: {goal} || Operation: {op}"
    return text if actions is None else f"{text} || Inputs: {actions}"


def _without_inputs(t3_option: str) -> str:
    """A ``T3`` option as ``T3-text`` shows it: the instructions without the inputs."""
    return t3_option.split(" || Inputs: ", 1)[0]


class _Pools:
    """Every game's candidate texts, and the rest of the set's as a fallback."""

    def __init__(self, items: Sequence[Annotated]) -> None:
        self.by_game: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
        for item in items:
            pool = self.by_game[item.game]
            ops = item.doc["operations"]
            goals = item.doc["goals"]
            strategies = item.doc["strategies"]
            pool["actions"] += [_actions(o) for o in ops]
            pool["operations"] += [o["instruction"] for o in ops]
            pool["goals"] += [g["instruction"] for g in goals]
            pool["strategies"] += [s["instruction"] for s in strategies]
            pool["op_pairs"] += [(o["instruction"], _actions(o)) for o in ops]

    def candidates(self, game: str, kind: str) -> tuple[list[Any], list[Any]]:
        """(this game's, the other games') distinct candidates of ``kind``, sorted."""
        own = sorted(set(self.by_game[game][kind]))
        others = sorted(
            {c for g, pool in self.by_game.items() if g != game for c in pool[kind]} - set(own)
        )
        return own, others


def _choose(
    rng: random.Random, right: str, own: Sequence[str], others: Sequence[str]
) -> tuple[list[str], str] | None:
    """Three distinct wrong options (same game first), or None."""
    pool = [c for c in own if c != right]
    source = "game"
    if len(pool) < 3:
        extra = [c for c in others if c != right and c not in pool]
        if len(pool) + len(extra) < 3:
            return None
        pool = pool + rng.sample(extra, 3 - len(pool))
        source = "corpus"
    return rng.sample(pool, 3), source


def _question(
    qid: str,
    task: str,
    item: Annotated,
    frames: list[int],
    text: str,
    right: str,
    wrong: list[str],
    source: str,
    rng: random.Random,
) -> dict[str, Any]:
    options = [right, *wrong]
    rng.shuffle(options)
    return {
        "id": qid,
        "task": task,
        "game": item.game,
        "episode": item.episode,
        "frames": frames,
        "question": text,
        "options": options,
        "answer": options.index(right),
        "distractors": source,
    }


def build_questions(
    items: Sequence[Annotated], seed: int, sample_fps: float, max_per_task: int | None = None
) -> dict[str, Any]:
    """The question-set document (:mod:`playsuite.records.horizon`) for ``items``."""
    pools = _Pools(items)
    names = _names(items)
    made: dict[str, list[dict[str, Any]]] = {t: [] for t in TASKS}
    skipped = dict.fromkeys(TASKS, 0)
    for item in items:
        if item.doc["sample_fps"] != sample_fps:
            raise ValueError(
                f"{item.episode}: annotated at {item.doc['sample_fps']} fps, "
                f"the set uses {sample_fps}"
            )
        doc = item.doc
        key = names[item.episode]
        ops = {o["id"]: o for o in doc["operations"]}
        goals = {g["id"]: g for g in doc["goals"]}
        goal_of = {c: g["id"] for g in doc["goals"] for c in g["children"]}
        strategy_of = {c: s["id"] for s in doc["strategies"] for c in s["children"]}
        strategies = {s["id"]: s for s in doc["strategies"]}

        def rng_for(qid: str) -> random.Random:
            return random.Random(f"{seed}:{qid}")

        def add(
            task: str, qid: str, frames, text, right, own, others, current: Annotated = item
        ) -> None:
            rng = rng_for(qid)
            chosen = _choose(rng, right, own, others)
            if chosen is None:
                skipped[task] += 1
                return
            made[task].append(_question(qid, task, current, frames, text, right, *chosen, rng))

        operations = doc["operations"]
        for i, op in enumerate(operations):
            right = _actions(op)
            own, others = pools.candidates(item.game, "actions")
            add(
                "T1",
                f"T1:{key}:{op['id']}",
                op["frames"],
                "The frames show a moment of play. The player was told: "
                f'"{op["instruction"]}". Which inputs did the player send next?',
                right,
                own,
                others,
            )
            add(
                "T1-frames",
                f"T1-frames:{key}:{op['id']}",
                op["frames"],
                "The frames show a moment of play. Which inputs did the player send next?",
                right,
                own,
                others,
            )
            goal = goals[goal_of[op["id"]]]
            strategy = strategies[strategy_of[goal["id"]]]
            add(
                "T1-multi",
                f"T1-multi:{key}:{op['id']}",
                op["frames"],
                "The frames show a moment of play. The player's overall strategy: "
                f'"{strategy["instruction"]}"; their current goal: "{goal["instruction"]}"; '
                f'they were told: "{op["instruction"]}". Which inputs did the player send next?',
                right,
                own,
                others,
            )
            if i + 1 < len(operations):
                add(
                    "T1-next",
                    f"T1-next:{key}:{op['id']}",
                    op["frames"],
                    "The frames show one operation of play. Which inputs did the player send in "
                    "the operation that came after it?",
                    _actions(operations[i + 1]),
                    own,
                    others,
                )
        for goal in doc["goals"]:
            children = [ops[c]["instruction"] for c in goal["children"]]
            right = _numbered(children)
            qid = f"T2:{key}:{goal['id']}"
            rng = rng_for(qid + ":wrong")
            own_ops, other_ops = pools.candidates(item.game, "operations")
            wrong_own = _reorderings(children, rng) + _swaps(children, own_ops, rng)
            wrong_other = _swaps(children, other_ops, rng)
            add(
                "T2",
                qid,
                goal["frames"],
                f'The player\'s goal is: "{goal["instruction"]}". Which sequence of operations, '
                "in order, carries it out?",
                right,
                sorted(set(wrong_own)),
                sorted(set(wrong_other)),
            )
            own_goals, other_goals = pools.candidates(item.game, "goals")
            add(
                "T2-up",
                f"T2-up:{key}:{goal['id']}",
                goal["frames"],
                f"The player carried out these operations in order: {right}. Which goal do they "
                "serve?",
                goal["instruction"],
                own_goals,
                other_goals,
            )
        for op in doc["operations"]:
            goal = goals[goal_of[op["id"]]]
            strategy = strategies[strategy_of[goal["id"]]]
            right = _t3(
                strategy["instruction"], goal["instruction"], op["instruction"], _actions(op)
            )
            qid = f"T3:{key}:{op['id']}"
            wrong = []
            for other_op, other_actions in sorted(set(pools.by_game[item.game]["op_pairs"])):
                wrong.append(
                    _t3(strategy["instruction"], goal["instruction"], other_op, other_actions)
                )
            for other_goal in pools.candidates(item.game, "goals")[0]:
                wrong.append(
                    _t3(strategy["instruction"], other_goal, op["instruction"], _actions(op))
                )
            for other_strategy in pools.candidates(item.game, "strategies")[0]:
                wrong.append(
                    _t3(other_strategy, goal["instruction"], op["instruction"], _actions(op))
                )
            others = [
                _t3(strategy["instruction"], goal["instruction"], o, a)
                for g, pool in sorted(pools.by_game.items())
                if g != item.game
                for o, a in sorted(set(pool["op_pairs"]))
            ]
            add(
                "T3",
                qid,
                op["frames"],
                "The frames show a moment of play. Which description, from the overall strategy "
                "down to the inputs sent, fits this moment?",
                right,
                sorted(set(wrong)),
                sorted(set(others)),
            )
            add(
                "T3-text",
                f"T3-text:{key}:{op['id']}",
                op["frames"],
                "The frames show a moment of play. Which description, from the overall strategy "
                "down to the operation under way, fits this moment?",
                _t3(strategy["instruction"], goal["instruction"], op["instruction"]),
                sorted({_without_inputs(w) for w in wrong} - {_without_inputs(right)}),
                sorted({_without_inputs(o) for o in others} - {_without_inputs(right)}),
            )
    counts = {}
    questions = []
    for task in TASKS:
        chosen = made[task]
        if max_per_task is not None and len(chosen) > max_per_task:
            rng = random.Random(f"{seed}:{task}:sample")
            keep = set(rng.sample(range(len(chosen)), max_per_task))
            chosen = [q for i, q in enumerate(chosen) if i in keep]
        counts[task] = len(chosen)
        questions += chosen
    return {
        "format": HORIZON_FORMAT,
        "seed": int(seed),
        "sample_fps": float(sample_fps),
        "counts": counts,
        "skipped": skipped,
        "questions": questions,
    }


def _names(items: Sequence[Annotated]) -> dict[str, str]:
    """Each episode's name in question ids: its corpus/preset/condition/game, with ``#n`` added
    (by order of directory) where several episodes share one (repeated plays of a game)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for item in items:
        groups[item.key].append(item.episode)
    names = {}
    for key, episodes in groups.items():
        for n, episode in enumerate(sorted(episodes)):
            names[episode] = key if len(episodes) == 1 else f"{key}#{n}"
    return names


def _reorderings(children: list[str], rng: random.Random) -> list[str]:
    """The operations in other orders (reversed, rotated, a few shuffles)."""
    if len(children) < 2:
        return []
    orders = [children[::-1], children[1:] + children[:1]]
    for _ in range(4):
        shuffled = list(children)
        rng.shuffle(shuffled)
        orders.append(shuffled)
    right = _numbered(children)
    return [text for order in orders if (text := _numbered(order)) != right]


def _swaps(children: list[str], pool: Sequence[str], rng: random.Random) -> list[str]:
    """The operations with one of them replaced by another from ``pool``."""
    foreign = [p for p in pool if p not in children]
    out = []
    for _ in range(min(6, len(foreign))):
        changed = list(children)
        changed[rng.randrange(len(children))] = rng.choice(foreign)
        out.append(_numbered(changed))
    return out


def option_block(options: Sequence[str]) -> str:
    """The options as the question prompt lists them: ``A. ...`` one per line."""
    return "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(options))
