history_cols = 32
