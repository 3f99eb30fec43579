history_cols = 34
