/*
 * two_line.c - the smallest use of ratelab: 10 requests per second with
 * bursts of up to 20, asked 25 times at once. The first 20 pass (the full
 * bucket), the other 5 are refused.
 *
 *   cc two_line.c $(pkg-config --cflags --libs ratelab) && ./a.out
 */
#include <stdio.h>

#include <ratelab/limit.h>

int main(void)
{
	struct rl_limit *l = rl_limit_new("token_bucket", 10, RL_S(1), 20);
	int admitted = 0;

	if (!l) {
		fprintf(stderr, "two_line: %s\n", rl_limit_error());
		return 1;
	}
	for (int i = 0; i < 25; i++)
		if (rl_limit_allow(l))
			admitted++;
	printf("admitted %d of 25\n", admitted);
	rl_limit_free(l);
	return admitted == 20 ? 0 : 1;
}
