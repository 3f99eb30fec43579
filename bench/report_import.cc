// report_import.cc - the report's "Import speed" section, from
// results/bench/import.json (bench/import/run.sh): how many lines of an
// nginx combined access log `ratelab import` reads per second on one core
// (CPU time of the one-threaded process, the median of the runs), beside
// the wall-clock rate of the same runs and the target of 2M lines per
// second; then the same for the log gzipped. Without the file the section
// says "not run".
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report.h"

namespace report {

void import_section(std::ostringstream &o, const Inputs &in)
{
	o << "## Import speed\n\n";
	std::ifstream f(in.results + "/bench/import.json");
	if (!f) {
		o << "Import: not run (bench/import/run.sh writes `results/bench/import.json`).\n\n";
		return;
	}
	nlohmann::json j = nlohmann::json::parse(f);
	double per_cpu = j.at("lines_per_cpu_s"), per_wall = j.at("lines_per_wall_s");
	double target = j.at("target_lines_per_s");
	long long lines = j.at("lines"), bytes = j.at("bytes");
	o << "`" << j.at("command").get<std::string>() << "` on a sample nginx combined log (`"
	  << j.at("log").get<std::string>() << "`: " << lines << " lines, " << fmt(bytes / 1048576.0, 0)
	  << " MiB, IPv4 and IPv6 clients, out of order as written at completion): read, parse, sort and "
	     "write the trace, median of "
	  << j.at("runs").size() << " runs on " << j.at("cpu").get<std::string>()
	  << ". Lines per CPU second (user + system time of the one thread) is the figure of one core; "
	     "the wall-clock rate of the same runs also counts the other work of a shared host.\n\n"
	  << "| log | lines | median CPU s | lines per CPU second | median wall s | lines per wall second | target |\n"
	  << "|---|---|---|---|---|---|---|\n"
	  << "| plain | " << lines << " | " << fmt(j.at("median_cpu_s").get<double>(), 3) << " | "
	  << fmt(per_cpu / 1e6, 2) << "M | " << fmt(j.at("median_wall_s").get<double>(), 3) << " | "
	  << fmt(per_wall / 1e6, 2) << "M | >= " << fmt(target / 1e6, 0)
	  << "M per core: " << (per_cpu >= target ? "met" : "**not met**") << " |\n";
	if (j.contains("gz")) {
		const auto &g = j.at("gz");
		o << "| gzip -6 (" << fmt(g.at("bytes").get<double>() / 1048576.0, 0) << " MiB), read through zlib | "
		  << lines << " | " << fmt(g.at("median_cpu_s").get<double>(), 3) << " | "
		  << fmt(g.at("lines_per_cpu_s").get<double>() / 1e6, 2) << "M | "
		  << fmt(g.at("median_wall_s").get<double>(), 3) << " | "
		  << fmt(g.at("lines_per_wall_s").get<double>() / 1e6, 2) << "M | - |\n";
	}
	o << "\n";
}

} // namespace report
