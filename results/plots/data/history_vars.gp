history_cols = 40
