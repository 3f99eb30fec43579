// report_study.cc - the report's "Study at scale" section: reads
// results/bench/study_scale.csv (name,value rows, bench/study/run.sh), the
// wall time and peak memory of one `ratelab study` of a synthetic trace,
// against the targets: at most 2 minutes, the trace at most 24 bytes per
// request; and limits.csv's share of that time, at most 60 s.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "report.h"

namespace report {

std::string study_scale_section(const Inputs &in)
{
	std::ostringstream o;
	std::ifstream f(in.results + "/bench/study_scale.csv");
	std::map<std::string, std::string> v;
	std::string line;

	o << "## Study at scale\n\n";
	if (!f) {
		o << "Not run (no `results/bench/study_scale.csv`: bench/study/run.sh).\n\n";
		return o.str();
	}
	while (std::getline(f, line)) {
		size_t comma = line.find(',');
		if (comma != std::string::npos)
			v[line.substr(0, comma)] = line.substr(comma + 1);
	}
	auto num = [&](const char *k) { return v.count(k) ? std::strtod(v[k].c_str(), nullptr) : NAN; };
	double wall = num("wall_s"), rss = num("peak_rss_bytes"), trace = num("trace_bytes"), n = num("requests");
	double per_request = n > 0 ? trace / n : NAN;
	o << "`" << v["command"] << "` on the trace of `" << v["generator"] << "` (bench/study_gen.c: "
	  << v["requests"] << " requests over " << v["keys"] << " keys, one hour of trace time), " << v["rows"]
	  << " rule x algorithm rows, " << v["jobs"] << " jobs on " << v["cores"] << " cores (" << v["cpu"]
	  << "), one run, timed from start to end: reading the trace, the study, its files and its report.\n\n"
	  << "| figure | measured | target |\n|---|---:|---|\n"
	  << "| wall time | " << fmt(wall, 1) << " s | <= 120 s: " << (wall <= 120 ? "met" : "**missed**") << " |\n"
	  << "| peak RSS | " << fmt(rss / 1048576.0, 0) << " MiB | stated |\n"
	  << "| the trace in memory | " << fmt(trace / 1048576.0, 0) << " MiB, " << fmt(per_request, 1)
	  << " B per request (keys included) | <= 24 B per request: " << (per_request <= 24 ? "met" : "**missed**")
	  << " |\n";
	double limits = num("limits_s");
	if (!std::isnan(limits))
		o << "| limits.csv (" << v["limits_windows"] << " windows, " << v["limits_rows"]
		  << " limits), within the wall time | " << fmt(limits, 1) << " s | <= 60 s: "
		  << (limits <= 60 ? "met" : "**missed**") << " |\n";
	o << "\n";
	return o.str();
}

} // namespace report
