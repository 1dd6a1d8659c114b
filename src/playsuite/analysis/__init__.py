"""Statistics over scores tables: the paper's tables and figures."""
