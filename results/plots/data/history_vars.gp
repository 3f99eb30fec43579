history_cols = 23
