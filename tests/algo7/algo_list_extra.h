/* The test programs' extra line of algo_list.h (RL_ALGO_LIST_EXTRA). */
RL_ALGO(naive_log)
