/*
 * bench_llm.c - the bench report's LLM API section: reads
 * RESULTS/sim/llm.csv (`ratelab sim --llm POLICY`, sim/cli/sim_llm_out.c;
 * bench/run.sh writes it) and writes, per algorithm, the three ways of
 * charging a request whose tokens are known only at its end (sim_llm.h):
 * the estimate, the real count up front (the ideal), and the estimate
 * settled. A missing or malformed file is an error: every make bench run
 * writes it.
 */
#include <math.h>
#include <string.h>

#include "bench_report_int.h"

static const char *const llm_columns[] = {
	"policy", "algo", "way", "requests", "admitted", "refused_ideal_admits", "tokens_real", "tokens_admitted",
	"tokens_over", NULL
};

static const char llm_intro[] =
	"## An LLM API: tokens known when the response ends\n\n"
	"`ratelab sim --llm %s` (sim/engine/sim_llm.h): 50 keys for 10 minutes at 120 %% of the first rule, "
	"each request's tokens log-normal (median about 1100, mean about 1800), its estimate (max_tokens) the "
	"least of 512 to 8192 at or above them, its response ending 300 ms + 10 ms per token after the "
	"decision; %s requests. Three ways per algorithm: **estimate** charges the estimate and never corrects "
	"it; **ideal** charges the real tokens up front (impossible: they are unknown then); **settle** charges "
	"the estimate and settles the difference when the response ends (settle.h). *Tokens over* are the "
	"admitted real tokens above the `:units` rule (at each admission, those by which the key's admitted "
	"tokens in (t - W, t] exceed N); *refused, ideal admits* the requests refused that the ideal way "
	"admitted. An algorithm that does not settle has no settle row.\n\n"
	"| algorithm | way | admitted %% | tokens admitted | tokens over | refused, ideal admits |\n"
	"|---|---|---:|---:|---:|---:|\n";

void br_llm(struct br_in *in, struct sr_buf *o)
{
	char path[SR_PATH_MAX + 64];
	struct sim_csv c;

	snprintf(path, sizeof(path), "%s/sim/llm.csv", in->results);
	br_csv(in, &c, path, llm_columns);
	if (in->status)
		goto done;
	if (!c.nrows) {
		br_error(in, SIM_CSV_BAD, "%s: missing or empty (run: ratelab sim --llm 60/1m+90000/1m:units)", path);
		goto done;
	}
	sr_printf(o, llm_intro, sim_csv_at(&c, 0, "policy"), sim_csv_at(&c, 0, "requests"));
	for (size_t i = 0; i < c.nrows; i++) {
		double req = sim_csv_num(&c, i, "requests"), adm = sim_csv_num(&c, i, "admitted");
		const char *algo = sim_csv_at(&c, i, "algo"), *way = sim_csv_at(&c, i, "way");
		if (isnan(req)) {
			sr_printf(o, "| %s | %s | does not settle | | | |\n", algo, way);
			continue;
		}
		if (req <= 0 || isnan(adm) || adm > req) {
			br_error(in, SIM_CSV_BAD, "%s:%zu: admitted %s of %s requests", path, i + 2,
				 sim_csv_at(&c, i, "admitted"), sim_csv_at(&c, i, "requests"));
			goto done;
		}
		sr_printf(o, "| %s | %s | %.1f | %s | %s | %s |\n", algo, way, 100.0 * adm / req,
			  sim_csv_at(&c, i, "tokens_admitted"), sim_csv_at(&c, i, "tokens_over"),
			  sim_csv_at(&c, i, "refused_ideal_admits"));
	}
	sr_puts(o, "\nsliding_log admits no token over the rule in any way, by construction (it is charged at least "
		   "the real tokens at every instant; tests/test_sim_llm.c asserts it).\n\n");
done:
	sim_csv_free(&c);
}
