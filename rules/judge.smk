# Judging: milestones from episode videos, levels, scores tables.
