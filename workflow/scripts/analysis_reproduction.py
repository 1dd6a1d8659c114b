"""Reproduction report: every published number beside the measured one, with its interval."""

import sys
from pathlib import Path

from playsuite.analysis import reference as ref
from playsuite.analysis.ablations import load_ablation
from playsuite.analysis.cost import cost_table, read_cost_records
from playsuite.analysis.efficiency import read_benchmarks
from playsuite.analysis.engine_checks import engine_check_markdown
from playsuite.analysis.outputs import read_table
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings
from playsuite.files import write_text_atomic
from playsuite.registry import load_registry

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

inp = snakemake.input
s = analysis_settings(snakemake.config)
scores = read_scores(inp.scores)
parts = [
    ref.main_cells(read_table(inp.main)),
    ref.genre_cells(read_table(inp.genres)),
    ref.agreement_cells(read_table(inp.genre_range)),
    ref.stability_cells(read_table(inp.stability)),
    ref.curation_cells(scores),
]
ablation_corpora = {}
for path, table_path in zip(inp.ablation_files, inp.ablations, strict=True):
    ab = load_ablation(path)
    table = read_table(table_path)
    parts.append(ref.ablation_cells(ab, table))
    ablation_corpora[ab.name] = set(table["corpus"]) if "corpus" in table else set()
judges_rated = set()
if len(inp.agreement):
    agreement = read_table(inp.agreement[0])
    parts.append(ref.judge_agreement_cells(agreement))
    judges_rated = {str(c).removesuffix("-human") for c in agreement["comparison"]}

# Cost as the paper measures it: each corpus's no-history campaign alone.
costs = read_cost_records(snakemake.params.costs)
costs = costs[~costs["preset"].isin(list(snakemake.params.engine_checks))]
registry = load_registry(inp.models)
for corpus in sorted(scores["corpus"].unique()):
    mine = scores[(scores["corpus"] == corpus) & (scores["condition"] == s.without_history)]
    records = costs[(costs["corpus"] == corpus) & (costs["condition"] == s.without_history)]
    table = cost_table(mine, records, s.without_history, registry)
    parts.append(ref.cost_cells(corpus, table))
parts.append(  # a setting, set beside the paper's cut so a differing run is visible
    {
        "curation/thresholds/genre_min_games": ref.Measured(
            float(s.genre_min_games), note="this run's analysis.genres.min_games"
        )
    }
)
# The catalog funnels that exist (a run given ready corpus tables has none).
funnels = {Path(f).parent.name: read_table(f) for f in inp.funnels}
parts.append(ref.funnel_cells(funnels))
# Table 4: the catalog's harm-category tables that exist (rule catalog_harm)
harm = {Path(f).parent.name: read_table(f) for f in inp.harm}
parts.append(ref.harm_cells(harm))
benchmarks = read_benchmarks(snakemake.params.benchmarks)
parts.append(ref.efficiency_cells(benchmarks))

ctx = ref.RunContext(
    corpora=set(scores["corpus"]),
    presets=set(scores["preset"]),
    ablations=ablation_corpora,
    ratings=bool(len(inp.agreement)),
    judges_rated=judges_rated,
    benchmarks={name for name, t in benchmarks.items() if t is not None},
    cost_records=not costs.empty,
    genre_min_games=s.genre_min_games,
    funnels=set(funnels),
    harm=set(harm),
)
published = ref.load_reference(inp.reference[0]) if len(inp.reference) else {}
table = ref.reproduction_table(
    published, ref.merge_cells(parts), lambda key: ref.why_not_measured(key, ctx)
)
write_text_atomic(snakemake.output.csv, table.to_csv(index=False))
text = ref.reproduction_markdown(table, f"Reproduction report ({snakemake.wildcards.judge} judge)")
if len(inp.engine_checks):  # configured engine checks: their own section, after every result
    text += "\n" + engine_check_markdown(read_table(inp.engine_checks[0]), heading="##")
write_text_atomic(snakemake.output.md, text)
