history_cols = 31
