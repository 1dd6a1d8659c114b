# Play: acquire games, run episodes in shard jobs (one inference server per node).
