/*
 * algo_list.h - every algorithm, written once: RL_ALGO(name) stands for
 * the ops table rl_<name>_algo. Included with RL_ALGO defined (algo.h
 * declares the tables, algo_list.c derives rl_algo_all(), rl_algo_find()
 * and rl_algo_names()); a new algorithm is one line here. A test build
 * may append lines of its own through RL_ALGO_LIST_EXTRA (a header of
 * further RL_ALGO lines).
 */
RL_ALGO(token_bucket)
RL_ALGO(gcra)
RL_ALGO(leaky_bucket)
RL_ALGO(fixed_window)
RL_ALGO(sliding_log)
RL_ALGO(sliding_counter)
#ifdef RL_ALGO_LIST_EXTRA
#include RL_ALGO_LIST_EXTRA
#endif
