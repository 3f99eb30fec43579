// report_main.cc - ratelab_report: writes results/REPORT.md, the chart data
// (results/plots/data) and the README's tradeoff table (the text between
// <!-- tradeoff:begin --> and <!-- tradeoff:end -->, nothing else).
//
//   ratelab_report RESULTS_DIR QUALITATIVE_CSV README MODE
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "ratelab_cxx.h"
#include "report.h"

namespace {

std::string slurp(const std::string &path)
{
	std::ifstream f(path);
	std::ostringstream s;
	s << f.rdbuf();
	return s.str();
}

void write(const std::string &path, const std::string &text)
{
	std::ofstream f(path);
	f << text;
	if (!f) {
		std::fprintf(stderr, "report: cannot write %s\n", path.c_str());
		std::exit(1);
	}
}

void update_readme(const std::string &path, const std::string &table)
{
	static const std::string begin = "<!-- tradeoff:begin -->", end = "<!-- tradeoff:end -->";
	std::string text = slurp(path);
	size_t b = text.find(begin), e = text.find(end);
	if (b == std::string::npos || e == std::string::npos || e < b) {
		std::fprintf(stderr, "report: %s has no %s ... %s markers; README left alone\n", path.c_str(),
			     begin.c_str(), end.c_str());
		return;
	}
	b += begin.size();
	write(path, text.substr(0, b) + "\n" + table + text.substr(e));
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 5) {
		std::fprintf(stderr, "usage: ratelab_report RESULTS_DIR QUALITATIVE_CSV README MODE\n");
		return 2;
	}
	report::Inputs in;
	in.results = argv[1];
	in.mode = argv[4];
	size_t n = 0;
	const rl_algo *const *all = rl_algo_all(&n);
	for (size_t i = 0; i < n; i++)
		in.algos.push_back({all[i]->name, all[i]->state_size});
	in.bench = report::load_bench(in.results + "/bench/bench.json");
	in.summary = report::load_csv(in.results + "/sim/summary.csv", report::kSummaryColumns);
	in.diverged = report::load_csv(in.results + "/sim/diverged.csv");
	in.peers = report::load_peers(in.results + "/bench/peers.json", &in.peers_run);
	// the summary's other rows (peer_<name> from `ratelab sim --decider`) after the library's own
	for (size_t i = 0; i < in.summary.rows.size(); i++) {
		const std::string &a = in.summary.at(i, "algo");
		bool known = false;
		for (const report::Algo &k : in.algos)
			known = known || k.name == a;
		if (!known)
			in.algos.push_back({a, 0});
	}
	in.breaker = report::load_csv(in.results + "/sim/breaker.csv");
	in.bytes_limit = report::load_csv(in.results + "/bench/bytes_vs_limit.csv");
	in.quals = report::load_csv(argv[2]);
	in.env = report::load_env(in.results + "/bench/env.txt");
	in.series_dir = in.results + "/sim/series";

	report::require_inputs(in);
	std::string data = in.results + "/plots/data";
	mkdir((in.results + "/plots").c_str(), 0755);
	mkdir(data.c_str(), 0755);
	report::write_chart_data(in, data);
	write(in.results + "/REPORT.md", report::full_report(in));
	update_readme(argv[3], report::tradeoff_table(in));
	std::printf("report: wrote %s/REPORT.md, %s, README tradeoff table\n", in.results.c_str(), data.c_str());
	return 0;
}
