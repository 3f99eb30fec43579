history_cols = 26
