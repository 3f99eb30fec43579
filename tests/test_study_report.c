/*
 * test_study_report.c - the study report (sim/report/study_report.h) from a
 * fixture study directory this test writes: REPORT.md's facts, tables,
 * theory line and recommendation (the recommendation computed here from
 * the fixture's table, independently of the report's code); the escaping
 * of names and keys; the report without gnuplot on PATH and with a
 * gnuplot that fails; every kind of malformed CSV refused with FILE:LINE;
 * and, run as `test_study_report html`, report.html opened in headless
 * Chromium with every chart image decoded, and the page check of both
 * reports' pages (tests/cli/lib/page_check.sh: table of contents, sorting,
 * pinned first columns, no console message, nothing fetched); Chromium
 * missing is a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"

#include "csv.h"
#include "study_report.h"
#include "study_report_int.h"
#include "test_rng.h"
#include "theory.h"

/* ---- the fixture: two rules; the first with a tie for the least excess
 * among the algorithms that hurt no within-rule key, the second where
 * every algorithm hurts one */
struct fx_row {
	const char *rule, *algo, *algo_csv, *algo_md; /* the name; in CSV; in Markdown */
	uint64_t requests, admitted, good, hurt, good_rej, excess, excess_adm;
	const char *ns, *bytes;
	uint64_t fr; /* false_rejects */
};

static const struct fx_row fx[] = {
	{"10/1s", "token_bucket", "token_bucket", "token_bucket", 5000, 4400, 40, 2, 7, 700, 120, "21.5", "16", 0},
	{"10/1s", "gcra", "gcra", "gcra", 5000, 4450, 40, 0, 0, 700, 150, "18.25", "8", 40},
	{"10/1s", "leaky_bucket", "leaky_bucket", "leaky_bucket", 5000, 4300, 40, 0, 0, 700, 30, "23", "16", 0},
	{"10/1s", "fixed_window", "fixed_window", "fixed_window", 5000, 4500, 40, 3, 11, 700, 200, "15", "16", 0},
	{"10/1s", "sliding_log", "sliding_log", "sliding_log", 5000, 4300, 40, 0, 0, 700, 0, "61.75", "168", 0},
	{"10/1s", "sliding_counter", "sliding_counter", "sliding_counter", 5000, 4310, 40, 0, 0, 700, 10, "24", "24", 3199},
	/* a decider whose name holds a '|', and the same least excess as sliding_log: a tie */
	{"10/1s", "peer_x|y", "peer_x|y", "peer_x\\|y", 5000, 4300, 40, 0, 0, 700, 0, "", "", 0},
	{"60/1m:b120", "token_bucket", "token_bucket", "token_bucket", 5000, 4980, 45, 1, 2, 20, 2, "21.5", "16", 5},
	{"60/1m:b120", "gcra", "gcra", "gcra", 5000, 4981, 45, 1, 3, 20, 2, "18.25", "8", 5},
	{"60/1m:b120", "sliding_log", "sliding_log", "sliding_log", 5000, 4970, 45, 2, 9, 20, 0, "61.75", "168", 0},
	{"60/1m:b120", "peer_x|y", "peer_x|y", "peer_x\\|y", 5000, 4990, 45, 4, 1, 20, 8, "", "", 2},
};
enum { NFX = sizeof(fx) / sizeof(fx[0]), NRULES = 2, NCHARTS = 2 * NRULES + 2 };
static const char *const fx_rules[NRULES] = {"10/1s", "60/1m:b120"};

/* meta: 5000 requests, 50 keys, span 99 s at 1 s resolution: 1 request/s per key */
static const char fx_meta[] =
	"name,value\n"
	"trace,/logs/acc|ess.log\n"
	"format,combined\n"
	"requests,5000\n"
	"keys,50\n"
	"span_ns,99000000000\n"
	"resolution_ns,1000000000\n"
	"traffic_bin_ns,1000000000\n"
	"spread,yes\n"
	"cost,no\n"
	"rules,\"10/1s,60/1m:b120\"\n"
	"algos,all\n"
	"jobs,2\n"
	"shard,0/1\n"
	"elapsed_s,3.5\n"
	"peak_rss_bytes,52428800\n"
	"trace_bytes,80000\n"
	"lines_read,5100\n"
	"lines_skipped,100\n"
	"requests_without_cost,5000\n"
	"skipped_example_1,\"/logs/acc|ess.log:7: not a combined log line: 'x,y'\"\n"
	"ratelab_version,test\n";

/* hurt within-rule keys whose names are HTML and Markdown; hold a comma, quotes and a newline;
 * hold a byte that is not UTF-8 and a control byte */
static const char fx_clients[] =
	"rule,algo,key,requests,admitted,within_rule\n"
	"10/1s,token_bucket,10.0.0.9,900,500,0\n"
	"10/1s,token_bucket,<script>alert(1)</script>|k,80,75,1\n"
	"10/1s,token_bucket,\"a,\"\"b\"\"\nc\",60,58,1\n"
	"10/1s,token_bucket,x\xffy\x01z,50,49,1\n"
	"10/1s,token_bucket,(other),3910,3718,37\n"
	"10/1s,gcra,10.0.0.9,900,450,0\n"
	"10/1s,sliding_log,10.0.0.9,900,600,0\n"
	"10/1s,sliding_log,(other),4100,3700,40\n"
	"60/1m:b120,sliding_log,10.0.0.9,900,880,0\n"
	"60/1m:b120,sliding_log,(other),4100,4090,45\n";

static char *fx_refused(void)
{
	static char buf[8192];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "rule,algo,share_lo,share_hi,keys\n");
	static const char *const lo[] = {"0", "0", "0.01", "0.1", "0.5"}, *const hi[] = {"0", "0.01", "0.1", "0.5", "1"};
	for (size_t i = 0; i < NFX; i++)
		for (int b = 0; b < 5; b++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s,\"%s\",%s,%s,%d\n", fx[i].rule,
					      fx[i].algo_csv, lo[b], hi[b], b == 0 ? 40 : (int)(i + b) % 4);
	return buf;
}

static char *fx_traffic(void)
{
	static char buf[8192];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "t_ns,requests,10.0.0.9,\"a,\"\"b\"\"\nc\"\n");
	for (int s = 0; s < 100; s++) /* from 2026-10-10 00:00:00 UTC */
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%lld000000000,%d,%d,%d\n", 1791590400LL + s,
				      40 + (s * 7) % 23, 9 + s % 5, s % 3);
	return buf;
}

static char *fx_study(void)
{
	static char buf[8192];
	size_t n = (size_t)snprintf(buf, sizeof(buf),
				    "rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,"
				    "excess_requests,excess_admitted,over_n_admissions,max_in_w_over_n,false_rejects,"
				    "diverged,ns_per_check,bytes_per_key\n");
	for (size_t i = 0; i < NFX; i++) {
		const struct fx_row *r = &fx[i];
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s,\"%s\",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,1.25,%llu,3,%s,%s\n",
				      r->rule, r->algo_csv, (unsigned long long)r->requests,
				      (unsigned long long)r->admitted, (unsigned long long)r->good,
				      (unsigned long long)r->hurt, (unsigned long long)r->good_rej,
				      (unsigned long long)r->excess, (unsigned long long)r->excess_adm,
				      (unsigned long long)r->excess_adm, (unsigned long long)r->fr, r->ns, r->bytes);
	}
	return buf;
}

/* limits.csv, one window: the peaks of 50 keys are 1 (20 keys), 2 (20), 3 (9) and 4 (1) */
static const char fx_limits[] =
	"window,limit,keys,keys_refused,requests,requests_refused\n"
	"1s,1,50,30,5000,900\n"
	"1s,2,50,10,5000,300\n"
	"1s,3,50,1,5000,20\n"
	"1s,4,50,0,5000,0\n";

/* ---- files */
static char tmp_root[64];

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	write_file(dir, name, text, strlen(text));
}

/* A fresh fixture directory dir/name with the five files. */
static void fixture(char *dir, size_t cap, const char *name)
{
	snprintf(dir, cap, "%s/%s", tmp_root, name);
	assert_int_equal(mkdir(dir, 0777), 0);
	write_text(dir, "meta.csv", fx_meta);
	write_text(dir, "study.csv", fx_study());
	write_text(dir, "clients.csv", fx_clients);
	write_text(dir, "refused.csv", fx_refused());
	write_text(dir, "traffic.csv", fx_traffic());
	write_text(dir, "limits.csv", fx_limits);
}


static bool exists(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct stat st;
	return stat(path, &st) == 0;
}

#define assert_has(text, needle)                                                                   \
	do {                                                                                       \
		if (!strstr((text), (needle)))                                                     \
			fail_msg("missing from the report: [%s]", (needle));                       \
	} while (0)
#define assert_lacks(text, needle)                                                                 \
	do {                                                                                       \
		if (strstr((text), (needle)))                                                      \
			fail_msg("in the report, and must not be: [%s]", (needle));                \
	} while (0)

/* Runs the report with err captured; returns its status, *msg what it printed (freed by caller). */
static int run_report(const char *dir, char **msg)
{
	size_t len;
	FILE *err = open_memstream(msg, &len);
	assert_non_null(err);
	int rc = sim_study_report(dir, err);
	fclose(err);
	return rc;
}

/* ---- the recommendation, computed here from fx[] */
/* The first place of the ranking by (within-rule keys hurt, false rejects, excess admitted), ties named. */
static void ranked_first(const char *rule, char *out, size_t cap)
{
	size_t first = NFX, tie = 0;
	char list[512] = "";
	for (size_t i = 0; i < NFX; i++) {
		if (strcmp(fx[i].rule, rule) != 0)
			continue;
		if (first == NFX || fx[i].hurt < fx[first].hurt ||
		    (fx[i].hurt == fx[first].hurt && (fx[i].fr < fx[first].fr ||
						      (fx[i].fr == fx[first].fr && fx[i].excess_adm < fx[first].excess_adm))))
			first = i;
	}
	for (size_t i = 0; i < NFX; i++)
		if (strcmp(fx[i].rule, rule) == 0 && fx[i].hurt == fx[first].hurt && fx[i].fr == fx[first].fr &&
		    fx[i].excess_adm == fx[first].excess_adm)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", tie++ ? ", " : "", fx[i].algo_md);
	snprintf(out, cap, "- %s: %s (%llu within-rule keys hurt, %llu false rejects, %llu of %llu excess requests "
		 "admitted%s).\n", tie > 1 ? "Tied for first" : "Recommended", list, (unsigned long long)fx[first].hurt,
		 (unsigned long long)fx[first].fr, (unsigned long long)fx[first].excess_adm,
		 (unsigned long long)fx[first].excess, tie > 1 ? " each" : "");
}

static void expected_recommendation(const char *rule, char *out, size_t cap)
{
	size_t n = 0, clean[NFX], nclean = 0;
	uint64_t good = 0, least_hurt = UINT64_MAX;
	for (size_t i = 0; i < NFX; i++)
		if (strcmp(fx[i].rule, rule) == 0) {
			good = fx[i].good;
			if (fx[i].hurt == 0)
				clean[nclean++] = i;
			if (fx[i].hurt < least_hurt)
				least_hurt = fx[i].hurt;
		}
	out[0] = '\0';
	if (nclean == 0) {
		n += (size_t)snprintf(out + n, cap - n, "- Hurt no within-rule key: none.\n");
		size_t tie = 0, first = 0;
		char list[512] = "";
		for (size_t i = 0; i < NFX; i++)
			if (strcmp(fx[i].rule, rule) == 0 && fx[i].hurt == least_hurt) {
				if (tie++ == 0)
					first = i;
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", tie > 1 ? ", " : "",
					 fx[i].algo_md);
			}
		n += (size_t)snprintf(out + n, cap - n, "- %s within-rule keys hurt: %s (%llu of %llu%s).\n",
				      tie > 1 ? "Tied for the fewest" : "Fewest", list, (unsigned long long)fx[first].hurt,
				      (unsigned long long)good, tie > 1 ? " each" : "");
		ranked_first(rule, out + n, cap - n);
		return;
	}
	char list[512] = "";
	for (size_t k = 0; k < nclean; k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "", fx[clean[k]].algo_md);
	n += (size_t)snprintf(out + n, cap - n, "- Hurt no within-rule key (of %llu): %s.\n",
			      (unsigned long long)good, list);
	ranked_first(rule, out + n, cap - n);
}

/* The part of md from the heading "### Rule R" after "## Recommendation". */
static const char *recommendation_of(const char *md, const char *rule)
{
	const char *sec = strstr(md, "\n## Recommendation\n");
	assert_non_null(sec);
	char head[64];
	snprintf(head, sizeof(head), "\n### Rule %s\n\n", rule);
	const char *r = strstr(sec, head);
	assert_non_null(r);
	return r + strlen(head);
}

static void test_report_content(void **state)
{
	(void)state;
	char dir[256], *msg;
	fixture(dir, sizeof(dir), "content");
	int rc = run_report(dir, &msg);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	char *md = tf_slurp(dir, "REPORT.md", NULL);
	assert_non_null(md);

	/* the answer opens the report: the peaks' percentiles of 50 keys (p50: 25 keys, p90: 45, p99 and
	 * max: 50 refused nothing) and the limit refusing none of 99% of them; then what was assumed */
	assert_true(strncmp(md, "# Study of /logs/acc\\|ess.log\n\n## The answer\n", 44) == 0);
	assert_has(md, "- The keys' peaks (50 keys; the most requests of one key in any 1s): p50 2, p90 3, p99 4, max 4.");
	assert_has(md, "- Suggested limit: 4/1s, the smallest that refuses no request of 99% of the keys. The exact "
		       "sliding log at it refuses 0 of 50 keys (0.0%) and 0 of 5000 requests (0.0%).");
	assert_has(md, "The keys it refuses are not named: the rule was not studied");
	assert_has(md, "## What was read and assumed\n\n- Lines read: 5100; skipped: 100");
	assert_has(md, "- Skipped: /logs/acc\\|ess.log:7: not a combined log line: 'x,y'");
	assert_has(md, "- Requests without a cost: 5000 of 5000 (each counts 1).");
	assert_has(md, "- Time resolution: 1 s. Spread (--spread)");
	assert_true(strstr(md, "## The answer") < strstr(md, "## What was read and assumed"));
	assert_true(strstr(md, "## What was read and assumed") < strstr(md, "## What was studied"));

	/* the facts */
	assert_has(md, "| trace | /logs/acc\\|ess.log |");
	assert_has(md, "| format | combined |");
	assert_has(md, "| requests | 5000 |");
	assert_has(md, "| keys | 50 |");
	assert_has(md, "| span | 99 s (first request to last) |");
	assert_has(md, "| time resolution | 1 s ");
	assert_has(md, "| --spread | yes");
	assert_has(md, "| costs | no");
	assert_has(md, "| memory used (peak RSS) | 50.0 MiB (52428800 bytes) |");
	assert_has(md, "| elapsed | 3.5 s |");
	assert_has(md, "| ratelab_version | test |");

	/* the measured table: every column of study.csv but rule, headline first, every row */
	assert_has(md, "| algo | requests | admitted | good_keys | good_keys_hurt | good_requests_rejected | "
		       "excess_requests | excess_admitted | over_n_admissions | max_in_w_over_n | false_rejects | "
		       "diverged | ns_per_check | bytes_per_key |");
	for (size_t i = 0; i < NFX; i++) {
		char row[256];
		snprintf(row, sizeof(row), "| %s | %llu | %llu | %llu | %llu | %llu | %llu | %llu |", fx[i].algo_md,
			 (unsigned long long)fx[i].requests, (unsigned long long)fx[i].admitted,
			 (unsigned long long)fx[i].good, (unsigned long long)fx[i].hurt,
			 (unsigned long long)fx[i].good_rej, (unsigned long long)fx[i].excess,
			 (unsigned long long)fx[i].excess_adm);
		assert_has(md, row);
	}

	/* the hurt within-rule keys, escaped; the key outside the rule is not listed */
	assert_has(md, "| token_bucket | \\<script\\>alert(1)\\</script\\>\\|k | 80 | 75 | 5 |");
	assert_has(md, "| token_bucket | a,\"b\"\\nc | 60 | 58 | 2 |");
	assert_has(md, "| token_bucket | x\\xffy\\x01z | 50 | 49 | 1 |");
	assert_lacks(md, "| token_bucket | 10.0.0.9 | 900 |");
	assert_lacks(md, "<script>");
	assert_has(md, "- token_bucket: 2 of 40 within-rule keys hurt, 7 of their requests refused; listed in clients.csv: 3");

	/* the theory line: at 5000 / 50 / (99 + 1) s = 1 request/s per key */
	for (size_t i = 0; i < NFX; i++) {
		double p, measured = (double)(fx[i].requests - fx[i].admitted) / (double)fx[i].requests;
		uint64_t limit = strcmp(fx[i].rule, "10/1s") == 0 ? 10 : 60;
		int64_t window = strcmp(fx[i].rule, "10/1s") == 0 ? 1000000000 : 60000000000;
		uint64_t burst = strcmp(fx[i].rule, "10/1s") == 0 ? 0 : 120;
		char row[256];
		if (strcmp(fx[i].algo, "sliding_counter") == 0)
			snprintf(row, sizeof(row), "| sliding_counter | no closed form (between fixed_window and "
						   "sliding_log) | %.3g%% | - |", measured * 100);
		else if (strcmp(fx[i].algo, "peer_x|y") == 0)
			snprintf(row, sizeof(row), "| peer_x\\|y | a decider: none | %.3g%% | - |", measured * 100);
		else {
			assert_true(sim_theory_reject(fx[i].algo, limit, window, burst, 1.0, &p));
			char th[32];
			if (p > 0 && p < 1e-6)
				snprintf(th, sizeof(th), "\\< 0.0001%%"); /* "<" escaped in Markdown */
			else
				snprintf(th, sizeof(th), "%.3g%%", p * 100);
			snprintf(row, sizeof(row), "| %s | %s | %.3g%% | %+.3g points |", fx[i].algo, th,
				 measured * 100, (measured - p) * 100);
		}
		assert_has(md, row);
	}
	assert_has(md, "### Rule 10/1s: load 10% (mean rate x W / N)");
	assert_has(md, "### Rule 60/1m:b120: load 100% (mean rate x W / N)");

	/* the recommendation, per rule, as computed here */
	for (int r = 0; r < NRULES; r++) {
		char want[1024];
		expected_recommendation(fx_rules[r], want, sizeof(want));
		const char *got = recommendation_of(md, fx_rules[r]);
		if (strncmp(got, want, strlen(want)) != 0)
			fail_msg("rule %s: recommendation\n--- want:\n%s--- got:\n%.*s", fx_rules[r], want,
				 (int)strlen(want) + 40, got);
	}
	/* the tie of rule 1 is named as one, with both costs; every algorithm ranked, harm first: the
	 * false rejects put gcra and sliding_counter after leaky_bucket, the hurt keys token_bucket and
	 * fixed_window last; sliding_counter's heaviest loser against sliding_log's clients.csv rows */
	assert_has(md, "- Tied for first: sliding_log, peer_x\\|y (0 within-rule keys hurt, 0 false rejects, 0 of 700 "
		       "excess requests admitted each).");
	assert_has(md, "| algorithm | within-rule keys hurt | false rejects | keys that lose the most | excess admitted | "
		       "ns per check | bytes per key |\n|---|---:|---:|---|---:|---:|---:|\n"
		       "| sliding_log | 0 | 0 | none (the exact log) | 0 of 700 | 61.75 ns | 168 B |\n"
		       "| peer_x\\|y | 0 | 0 | not known (no such rows in clients.csv) | 0 of 700 | not measured | not measured |\n"
		       "| leaky_bucket | 0 | 0 | not known (no such rows in clients.csv) | 30 of 700 | 23 ns | 16 B |\n"
		       "| gcra | 0 | 40 | 10.0.0.9: 450 admitted of 600 | 150 of 700 | 18.25 ns | 8 B |\n"
		       "| sliding_counter | 0 | 3199 | not known (no such rows in clients.csv) | 10 of 700 | 24 ns | 24 B |\n"
		       "| token_bucket | 2 | 0 | 10.0.0.9: 500 admitted of 600 | 120 of 700 | 21.5 ns | 16 B |\n"
		       "| fixed_window | 3 | 0 | not known (no such rows in clients.csv) | 200 of 700 | 15 ns | 16 B |\n");

	/* the charts: linked, saved, PNG; the temporary directory gone */
	static const char *const png[NCHARTS] = {"plots/hurt_1.png", "plots/refused_1.png", "plots/hurt_2.png",
						 "plots/refused_2.png", "plots/limits_1.png", "plots/traffic.png"};
	for (int i = 0; i < NCHARTS; i++) {
		char link[64];
		snprintf(link, sizeof(link), "](%s)", png[i]);
		assert_has(md, link);
		size_t len;
		char *data = tf_slurp(dir, png[i], &len);
		assert_non_null(data);
		assert_true(len > 1000 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0);
		free(data);
	}
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^\\.report-' >/dev/null", dir);
	assert_int_not_equal(system(cmd), 0);

	/* the page: the same charts embedded, names escaped, nothing to fetch */
	char *html = tf_slurp(dir, "report.html", NULL);
	assert_non_null(html);
	size_t imgs = 0;
	for (const char *p = html; (p = strstr(p, "\" src=\"data:image/png;base64,iVBORw0KGgo")); p++)
		imgs++;
	assert_int_equal(imgs, NCHARTS);
	assert_has(html, "&lt;script&gt;alert(1)&lt;/script&gt;|k");
	assert_has(html, "a,&quot;b&quot;\\nc");
	assert_has(html, "x\\xffy\\x01z");
	assert_lacks(html, "\xff");
	assert_lacks(md, "\xff");
	/* one script, the page's own (its sort): the data's "<script>" is text */
	const char *script = strstr(html, "<script");
	assert_non_null(script);
	assert_null(strstr(script + 1, "<script"));
	assert_lacks(html, "http://");
	assert_lacks(html, "https://");
	assert_lacks(html, "src=\"plots/");
	free(html);
	free(md);
}

/* placement.csv: rule 10/1s decided again with the other tick placement (the fixture is spread: without
 * --spread there); the first place and the clean set differ, so neither is called robust */
static void test_report_placement(void **state)
{
	(void)state;
	char dir[256], *msg;
	fixture(dir, sizeof(dir), "placement");
	static const char *const algos[] = {"token_bucket", "gcra", "leaky_bucket", "fixed_window", "sliding_log",
					    "sliding_counter"};
	static const int hurt[] = {0, 0, 0, 1, 0, 0}, fr[] = {0, 0, 0, 0, 0, 10}, ex[] = {0, 5, 30, 200, 0, 10};
	char buf[4096];
	size_t n = (size_t)snprintf(buf, sizeof(buf),
				    "rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,"
				    "excess_requests,excess_admitted,over_n_admissions,max_in_w_over_n,false_rejects,"
				    "diverged,ns_per_check,bytes_per_key\n");
	for (int i = 0; i < 6; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "10/1s,%s,5000,4300,40,%d,%d,720,%d,0,1.0,%d,0,1.0,8\n",
				      algos[i], hurt[i], hurt[i], ex[i], fr[i]);
	write_text(dir, "placement.csv", buf);
	int rc = run_report(dir, &msg);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	char *md = tf_slurp(dir, "REPORT.md", NULL);
	assert_non_null(md);
	assert_has(md, "- Rules whose W/N is finer than the time resolution, decided both with and without --spread "
		       "(placement.csv; the recommendation says where the verdicts agree): 10/1s.");
	const char *r = recommendation_of(md, "10/1s");
	assert_has(r, "placement.csv holds the rule decided without --spread (each tick's requests at its start). "
		      "There: tied for first, token_bucket, sliding_log (0 within-rule keys hurt, 0 false rejects, 0 of 720 "
		      "excess admitted); hurt no within-rule key: token_bucket, gcra, leaky_bucket, sliding_log, "
		      "sliding_counter.");
	assert_has(r, "- Robust: not the recommendation, which differs with the placement; not which algorithms hurt no "
		      "within-rule key, which differs with the placement.");
	assert_has(r, "| without --spread: hurt, false rejects, excess |");
	assert_has(r, "| fixed_window | 3 | 0 | not known (no such rows in clients.csv) | 200 of 700 | 15 ns | 16 B | 1, 0, 200 of 720 |");
	assert_has(r, "| peer_x\\|y | 0 | 0 | not known (no such rows in clients.csv) | 0 of 700 | not measured | not measured | "
		      "not decided (a decider) |");
	/* rule 60/1m:b120 was not decided again */
	const char *r2 = recommendation_of(md, "60/1m:b120");
	const char *end = strstr(r2, "\n## ");
	assert_true(!strstr(r2, "Decided both ways") || (end && strstr(r2, "Decided both ways") > end));
	free(md);
}

/* a merge's limits.csv may lack the limit below a percentile: quoted as an upper bound */
static void test_report_merged_limits(void **state)
{
	(void)state;
	char dir[256], *msg, meta[sizeof(fx_meta) + 64];
	fixture(dir, sizeof(dir), "merged");
	const char *at = strstr(fx_meta, "shard,0/1\n");
	assert_non_null(at);
	snprintf(meta, sizeof(meta), "%.*sshard,all (2 shards merged)\n%s", (int)(at - fx_meta), fx_meta,
		 at + strlen("shard,0/1\n"));
	write_text(dir, "meta.csv", meta);
	write_text(dir, "limits.csv", "window,limit,keys,keys_refused,requests,requests_refused\n"
				      "1s,1,50,30,5000,900\n1s,3,50,1,5000,20\n1s,4,50,0,5000,0\n");
	int rc = run_report(dir, &msg);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	char *md = tf_slurp(dir, "REPORT.md", NULL);
	assert_non_null(md);
	assert_has(md, "p50 at most 3, p90 at most 3, p99 4, max 4.");
	assert_has(md, "- Suggested limit: 4/1s, the smallest");
	free(md);
}

static void test_report_no_gnuplot(void **state)
{
	(void)state;
	char dir[256], empty[256], *msg;
	fixture(dir, sizeof(dir), "nognuplot");
	snprintf(empty, sizeof(empty), "%s/emptybin", tmp_root);
	assert_int_equal(mkdir(empty, 0777), 0);
	/* an earlier report's charts must not survive into one without them */
	char plots[300];
	snprintf(plots, sizeof(plots), "%s/plots", dir);
	assert_int_equal(mkdir(plots, 0777), 0);
	write_text(plots, "hurt_1.png", "stale");
	char *path = strdup(getenv("PATH"));
	setenv("PATH", empty, 1);
	int rc = run_report(dir, &msg);
	setenv("PATH", path, 1);
	free(path);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	char *md = tf_slurp(dir, "REPORT.md", NULL), *html = tf_slurp(dir, "report.html", NULL);
	assert_non_null(md);
	assert_non_null(html);
	assert_has(md, "gnuplot was not found on PATH");
	assert_has(html, "gnuplot was not found on PATH");
	assert_lacks(md, "![");
	assert_lacks(html, "<img");
	assert_false(exists(dir, "plots/hurt_1.png"));
	/* everything else is there */
	assert_has(md, "\n## Recommendation\n");
	assert_has(md, "\n## Theory: Poisson traffic at the same mean rate\n");
	free(md);
	free(html);
}

static void test_report_gnuplot_fails(void **state)
{
	(void)state;
	char dir[256], bin[256], *msg;
	fixture(dir, sizeof(dir), "badgnuplot");
	snprintf(bin, sizeof(bin), "%s/badbin", tmp_root);
	assert_int_equal(mkdir(bin, 0777), 0);
	write_text(bin, "gnuplot", "#!/bin/sh\necho 'line 3: unknown terminal type' >&2\nexit 1\n");
	char g[300];
	snprintf(g, sizeof(g), "%s/gnuplot", bin);
	assert_int_equal(chmod(g, 0755), 0);
	char *path = strdup(getenv("PATH")), newpath[4096];
	snprintf(newpath, sizeof(newpath), "%s:%s", bin, path);
	setenv("PATH", newpath, 1);
	int rc = run_report(dir, &msg);
	setenv("PATH", path, 1);
	free(path);
	assert_int_equal(rc, 1);
	assert_has(msg, "exited with status 1");
	assert_has(msg, "line 3: unknown terminal type");
	free(msg);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -q '^\\.report-'", dir);
	assert_int_not_equal(system(cmd), 0);
}

/* A day in 1-min bins: rates per second with their decimals, the peak's bin as a date (UTC, or
 * meta.csv's tz); more than 2000 bins is not a study's; a trace whose name was not recorded is said so. */
static void test_report_long_traffic(void **state)
{
	(void)state;
	char dir[256], *msg;
	fixture(dir, sizeof(dir), "long");
	static char traffic[200000];
	size_t n = (size_t)snprintf(traffic, sizeof(traffic), "t_ns,requests,k\n");
	for (int b = 0; b <= 1440; b++)
		n += (size_t)snprintf(traffic + n, sizeof(traffic) - n, "%lld,%d,%d\n",
				      (1791590400LL + 60LL * b) * 1000000000LL, b == 1000 ? 59990 : 600 + b % 7, b % 2);
	write_text(dir, "traffic.csv", traffic);
	char meta[sizeof(fx_meta) + 32];
	snprintf(meta, sizeof(meta), "%s", fx_meta);
	char *t = strstr(meta, "trace,/logs/acc|ess.log\n");
	assert_non_null(t);
	memmove(t + 6, t + strlen("trace,/logs/acc|ess.log"), strlen(t + strlen("trace,/logs/acc|ess.log")) + 1);
	t = strstr(meta, "traffic_bin_ns,1000000000\n");
	assert_non_null(t);
	memcpy(t, "traffic_bin_ns,60000000000\n", strlen("traffic_bin_ns,60000000000\n") + 1);
	snprintf(meta + strlen(meta), sizeof(meta) - strlen(meta), "tz,+02:00\n");
	/* (the rows after traffic_bin_ns were cut by the copy: put the fixture's tail back) */
	const char *tail = strstr(fx_meta, "spread,yes\n");
	snprintf(meta + strlen(meta), sizeof(meta) - strlen(meta), "%s", tail);
	write_text(dir, "meta.csv", meta);
	int rc = run_report(dir, &msg);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	char *md = tf_slurp(dir, "REPORT.md", NULL);
	assert_non_null(md);
	assert_has(md, "# Study of a trace (its name not recorded)\n");
	assert_has(md, "Requests per second, counted in bins of 1 min from 2026-10-10 02:00:00 to 2026-10-11 02:00:00 "
		       "(UTC+02:00): all requests, and the heaviest key.");
	assert_has(md, "| all requests | ");
	assert_has(md, " | 999.833 | 2026-10-10 18:40:00 |");
	assert_has(md, "| k | 720 | 0.0166667 | 2026-10-10 02:01:00 |");
	assert_has(md, "![Traffic: requests per second, in bins of 1 min, all and the heaviest key](plots/traffic.png)");
	assert_true(exists(dir, "plots/traffic.png"));
	free(md);
	/* 2001 bins */
	n = (size_t)snprintf(traffic, sizeof(traffic), "t_ns,requests\n");
	for (int b = 0; b <= 2000; b++)
		n += (size_t)snprintf(traffic + n, sizeof(traffic) - n, "%lld,1\n", (1791590400LL + 60LL * b) * 1000000000LL);
	write_text(dir, "traffic.csv", traffic);
	assert_int_equal(run_report(dir, &msg), 2);
	assert_has(msg, "/traffic.csv:2002: more than 2000 bins");
	free(msg);
}

/* Every request in one bin of a log: the chart still has an x range (one bin wide each side). */
static void test_report_one_bin(void **state)
{
	(void)state;
	char dir[256], *msg;
	fixture(dir, sizeof(dir), "onebin");
	write_text(dir, "traffic.csv", "t_ns,requests\n1791637200000000000,3\n");
	int rc = run_report(dir, &msg);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	char *md = tf_slurp(dir, "REPORT.md", NULL);
	assert_non_null(md);
	assert_has(md, "Requests per second, counted in bins of 1 s from 2026-10-10 13:00:00 to 2026-10-10 13:00:00 (UTC).");
	assert_has(md, "| all requests | 3 | 3 | 2026-10-10 13:00:00 |");
	free(md);
	assert_true(exists(dir, "plots/traffic.png"));
}

/* Few requests over a long span: the rate per hour, whose ticks show their decimals; a trace
 * counting from 0 has its times from 0, not dates. */
static void test_report_sparse_traffic(void **state)
{
	(void)state;
	char dir[256], *msg;
	fixture(dir, sizeof(dir), "sparse");
	write_text(dir, "traffic.csv", "t_ns,requests\n0,1\n86400000000000,0\n172800000000000,2\n");
	char meta[sizeof(fx_meta) + 32];
	snprintf(meta, sizeof(meta), "%s", fx_meta);
	char *t = strstr(meta, "format,combined");
	memcpy(t, "format,trace\n", strlen("format,trace\n"));
	memmove(t + strlen("format,trace\n"), t + strlen("format,combined\n"), strlen(t + strlen("format,combined\n")) + 1);
	t = strstr(meta, "traffic_bin_ns,1000000000\n");
	assert_non_null(t);
	memmove(t + strlen("traffic_bin_ns,86400000000000\n"), t + strlen("traffic_bin_ns,1000000000\n"),
		strlen(t + strlen("traffic_bin_ns,1000000000\n")) + 1);
	memcpy(t, "traffic_bin_ns,86400000000000\n", strlen("traffic_bin_ns,86400000000000\n"));
	write_text(dir, "meta.csv", meta);
	int rc = run_report(dir, &msg);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	char *md = tf_slurp(dir, "REPORT.md", NULL);
	assert_non_null(md);
	assert_has(md, "Requests per hour, counted in bins of 1 day from 0 s to 2 days (from the trace's time 0).");
	assert_has(md, "| all requests | 3 | 0.0833333 | 2 days |");
	free(md);
}

/* gnuplot found through a relative PATH entry still runs, though it runs in another directory;
 * a trace with costs says its figures are units */
static void test_report_relative_path_costs(void **state)
{
	(void)state;
	char dir[256], *msg, real[512] = "", cwd[512];
	FILE *p = popen("command -v gnuplot", "r");
	assert_non_null(p);
	assert_non_null(fgets(real, sizeof(real), p));
	pclose(p);
	real[strcspn(real, "\n")] = '\0';
	fixture(dir, sizeof(dir), "relative");
	const char *c = strstr(fx_meta, "cost,no\n");
	assert_non_null(c);
	char meta[sizeof(fx_meta) + 16];
	int len = snprintf(meta, sizeof(meta), "%.*scost,yes\n%s", (int)(c - fx_meta), fx_meta, c + strlen("cost,no\n"));
	assert_true(len > 0 && (size_t)len < sizeof(meta));
	write_text(dir, "meta.csv", meta);
	char bin[300], link[400];
	snprintf(bin, sizeof(bin), "%s/relbin", tmp_root);
	assert_int_equal(mkdir(bin, 0777), 0);
	snprintf(link, sizeof(link), "%s/gnuplot", bin);
	assert_int_equal(symlink(real, link), 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmp_root), 0);
	char *path = strdup(getenv("PATH"));
	setenv("PATH", "relbin", 1);
	int rc = run_report(dir, &msg);
	setenv("PATH", path, 1);
	free(path);
	assert_int_equal(chdir(cwd), 0);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	assert_true(exists(dir, "plots/traffic.png"));
	assert_true(exists(dir, "plots/hurt_2.png"));
	char *md = tf_slurp(dir, "REPORT.md", NULL);
	assert_non_null(md);
	assert_has(md, "| costs | yes: the request columns count units |");
	assert_has(md, "The trace has costs: the request columns count units.");
	assert_has(md, "0 of 700 excess units admitted each).");
	assert_has(md, "the theory is for requests of cost 1.");
	free(md);
}

/* ---- malformed files: each refused with status 2 and FILE:LINE */
struct bad_case {
	const char *file, *text, *want; /* want: after "DIR/" */
};

static void test_malformed(void **state)
{
	(void)state;
	static const char head[] = "rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,"
				   "excess_requests,excess_admitted,ns_per_check,bytes_per_key\n";
	static const char row[] = "10/1s,gcra,10,9,2,0,0,1,0,5,8\n";
	char study[12][512];
	snprintf(study[0], 512, "%s%s10/1s,\"sliding_log,10,9,2,0,0,1,0,5,8\n", head, row);
	snprintf(study[1], 512, "%s%s10/1s,sliding_log,10,9,2,0,0,1,0,5,8\n10/1s,gcra2,10,9,2,0,0,1,0\n", head, row);
	snprintf(study[2], 512, "%s10/1s,gcra,1x0,9,2,0,0,1,0,5,8\n", head);
	snprintf(study[3], 512, "rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,ns_per_check,bytes_per_key\n");
	snprintf(study[4], 512, "%s%s10/1s,fixed_window,10,11,2,0,0,1,0,5,8\n", head, row);
	snprintf(study[5], 512, "%s\"10/1s\"x,gcra,10,9,2,0,0,1,0,5,8\n", head);
	snprintf(study[6], 512, "%s%s%s", head, row, row);
	snprintf(study[7], 512, "%s10/1x,gcra,10,9,2,0,0,1,0,5,8\n", head);
	snprintf(study[8], 512, "%s10/1s,gcra,10,9,2,3,0,1,0,5,8\n", head);
	snprintf(study[9], 512, "%s10/1s,gcra,10,9,2,0,0,1,0,-5,8\n", head);
	snprintf(study[10], 512, "%s10/1s,gc\"ra,10,9,2,0,0,1,0,5,8\n", head);
	snprintf(study[11], 512, "%s", head);
	const struct bad_case cases[] = {
		{"study.csv", study[0], "study.csv:3: a quoted field is not closed"},
		{"study.csv", study[1], "study.csv:4: 9 fields, the header has 11"},
		{"study.csv", study[2], "study.csv:2: requests '1x0' is not an integer"},
		{"study.csv", study[3], "study.csv:1: the header must begin rule,algo,"},
		{"study.csv", study[4], "study.csv:3: admitted 11 is more than requests 10"},
		{"study.csv", study[5], "study.csv:2: text after a closing '\"'"},
		{"study.csv", study[6], "study.csv:3: rule and algo given twice (first on line 2)"},
		{"study.csv", study[7], "study.csv:2: rule '10/1x': the window '1x' is not a duration"},
		{"study.csv", study[8], "study.csv:2: good_keys_hurt 3 is more than good_keys 2"},
		{"study.csv", study[9], "study.csv:2: ns_per_check '-5' is not a non-negative decimal number"},
		{"study.csv", study[10], "study.csv:2: a '\"' inside an unquoted field"},
		{"study.csv", study[11], "study.csv:1: no rows"},
		{"study.csv", "", "study.csv:1: empty: no header line"},
		{"clients.csv", "rule,algo,key,requests,admitted,within_rule\n10/1s,gcra,k,5,5,1\n10/1s,nope,k,5,5,1\n",
		 "clients.csv:3: rule '10/1s' and algo 'nope' are not a row of study.csv"},
		{"clients.csv", "rule,algo,key,requests,admitted,within_rule\n10/1s,gcra,k,5,5,maybe\n",
		 "clients.csv:2: within_rule 'maybe' is not 1, 0, yes or no (a key's row)"},
		{"clients.csv", "rule,algo,key,requests,admitted\n", "clients.csv:1: no column 'within_rule'"},
		{"refused.csv", "rule,algo,share_lo,share_hi,keys\n10/1s,gcra,0,0,3\n10/1s,gcra,0.5,1.5,1\n",
		 "refused.csv:3: share_lo 0.5 and share_hi 1.5 are not a bucket of [0, 1]"},
		{"traffic.csv", "t_ns,requests\n1000000000,5\n3000000000,7\n",
		 "traffic.csv:3: t_ns 3000000000 where 2000000000 was due"},
		{"traffic.csv", "second,requests\n0,5\n", "traffic.csv:1: the header must begin t_ns,requests"},
		{"meta.csv", "name,value\ntrace,t\nformat,trace\nrequests,1\nkeys,1\nspan_ns,0\nresolution_ns,1\nspread,maybe\ncost,no\n"
			     "traffic_bin_ns,1000000000\n",
		 "meta.csv:8: spread 'maybe' is not yes or no"},
		{"meta.csv", "name,value\ntrace,t\nformat,trace\nrequests,1\nkeys,1\nspan_ns,0\nresolution_ns,1\nspread,no\ncost,no\n"
			     "traffic_bin_ns,1500000000\n",
		 "meta.csv:10: traffic_bin_ns '1500000000' is not a whole number of seconds in ns"},
		{"meta.csv", "name,value\ntrace,t\nformat,trace\nrequests,1\nkeys,1\nresolution_ns,1\nspread,no\ncost,no\n",
		 "meta.csv:8: no row named span_ns"},
		{"meta.csv", "name,value\ntrace,t\ntrace,u\n", "meta.csv:3: trace given twice (first on line 2)"},
		{"meta.csv", "name,value\ntrace,\"multi\nline\"\nformat,trace\nrequests,1\nkeys,1\nspan_ns,x\n"
			     "resolution_ns,1\nspread,no\ncost,no\ntraffic_bin_ns,1000000000\n",
		 "meta.csv:7: span_ns 'x' is not an integer"},
	};
	/* the fixture's clients, refused and traffic name its own study rows: for the study.csv
	 * cases they are replaced by files of the one row (10/1s, gcra) that case keeps */
	static const char clients1[] = "rule,algo,key,requests,admitted,within_rule\n10/1s,gcra,k,5,5,1\n";
	static const char refused1[] = "rule,algo,share_lo,share_hi,keys\n10/1s,gcra,0,0,1\n";
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[256], name[32], *msg;
		snprintf(name, sizeof(name), "bad%zu", i);
		fixture(dir, sizeof(dir), name);
		char ok_study[512];
		snprintf(ok_study, sizeof(ok_study), "%s%s", head, row);
		write_text(dir, "study.csv", ok_study);
		write_text(dir, "clients.csv", clients1);
		write_text(dir, "refused.csv", refused1);
		write_text(dir, cases[i].file, cases[i].text);
		int rc = run_report(dir, &msg);
		char want[512];
		snprintf(want, sizeof(want), "ratelab study: %s/%s", dir, cases[i].want);
		if (rc != 2 || !strstr(msg, want))
			fail_msg("case %zu: status %d, message:\n%s\nwanted status 2 and:\n%s", i, rc, msg, want);
		assert_false(exists(dir, "REPORT.md"));
		free(msg);
	}
	/* a NUL byte, and a missing file */
	char dir[256], *msg;
	fixture(dir, sizeof(dir), "badnul");
	write_file(dir, "traffic.csv", "t_ns,requests\n0,5\n1000000000,\0\n", 31);
	assert_int_equal(run_report(dir, &msg), 2);
	assert_has(msg, "/traffic.csv:3: holds a NUL byte");
	free(msg);
	fixture(dir, sizeof(dir), "badmissing");
	char path[300];
	snprintf(path, sizeof(path), "%s/refused.csv", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(run_report(dir, &msg), 2);
	assert_has(msg, "/refused.csv': No such file or directory");
	free(msg);
}

/* The rules the study's files are read under (study_read.c): a header named once each, rows its length. */
static const struct sim_csv_rules study_rules = {false, false, true, false};

/* ---- the CSV reader (csv.h) against its model: random tables of awkward fields (',', '"', CR,
 * LF, empty, UTF-8), written by RFC 4180 with either line ending, quoted when they must
 * be and at random otherwise, read back field for field */
static void test_csv_roundtrip(void **state)
{
	(void)state;
	static const char *const bits[] = {"a", ",", "\"", "\r", "\n", "\r\n", " ", "\xc3\xa9", "b|c", "0"};
	uint64_t seed = t_seed_from_env(20261202), rng = seed;
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/csv", tmp_root);
	assert_int_equal(mkdir(dir, 0777), 0);
	for (int iter = 0; iter < 300; iter++) {
		size_t ncols = 1 + t_splitmix(&rng) % 4, nrows = t_splitmix(&rng) % 6;
		bool crlf = t_splitmix(&rng) % 2, final_eol = t_splitmix(&rng) % 4 != 0;
		char want[7][4][32];
		char text[4096];
		size_t n = 0;
		long want_line[7];
		for (size_t r = 0; r <= nrows; r++) {
			want_line[r] = 1;
			for (size_t k = 0; k < n; k++)
				want_line[r] += text[k] == '\n';
			for (size_t c = 0; c < ncols; c++) {
				char *f = want[r][c];
				f[0] = '\0';
				if (r == 0)
					snprintf(f, 32, "c%zu", c);
				else
					for (uint64_t k = t_splitmix(&rng) % 4; k > 0; k--)
						strcat(f, bits[t_splitmix(&rng) % 10]);
				bool must = strpbrk(f, ",\"\r\n") || (ncols == 1 && !*f);
				bool quote = must || t_splitmix(&rng) % 3 == 0;
				if (c)
					text[n++] = ',';
				if (quote)
					text[n++] = '"';
				for (const char *p = f; *p; p++) {
					if (*p == '"')
						text[n++] = '"';
					text[n++] = *p;
				}
				if (quote)
					text[n++] = '"';
			}
			if (r < nrows || final_eol)
				n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", crlf ? "\r\n" : "\n");
		}
		write_file(dir, "t.csv", text, n);
		struct sim_csv t;
		char *msg, path[300];
		size_t len;
		FILE *err = open_memstream(&msg, &len);
		snprintf(path, sizeof(path), "%s/t.csv", dir);
		int rc = sim_csv_read(&t, path, &study_rules, "ratelab study: ", err);
		fclose(err);
		if (rc != 0)
			fail_msg("seed %llu, table %d: refused: %s", (unsigned long long)seed, iter, msg);
		free(msg);
		if (t.ncols != ncols || t.nrows != nrows)
			fail_msg("seed %llu, table %d: %zu x %zu read, %zu x %zu written", (unsigned long long)seed, iter,
				 t.nrows, t.ncols, nrows, ncols);
		for (size_t r = 1; r <= nrows; r++)
			if (t.line[r - 1] != want_line[r])
				fail_msg("seed %llu, table %d, row %zu: line %ld read, %ld written", (unsigned long long)seed,
					 iter, r, t.line[r - 1], want_line[r]);
		for (size_t r = 0; r <= nrows; r++)
			for (size_t c = 0; c < ncols; c++) {
				const char *got = r ? t.row[r - 1][c] : t.col[c];
				if (strcmp(got, want[r][c]) != 0)
					fail_msg("seed %llu, table %d, row %zu, column %zu: read [%s], written [%s]",
						 (unsigned long long)seed, iter, r, c, got, want[r][c]);
			}
		sim_csv_free(&t);
	}
}

/* ---- report.html in headless Chromium: every chart decoded */

/* The widths Chromium decoded, from the page's dump: their count, or -1. */
static int chromium_widths(const char *page, long *w, int cap, char *log, size_t logcap)
{
	char cmd[1024], out[300];
	snprintf(out, sizeof(out), "%s/chromium.out", tmp_root);
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir='%s/chromium-profile' "
		 "--virtual-time-budget=5000 --dump-dom 'file://%s' >'%s' 2>'%s/chromium.err'",
		 tmp_root, page, out, tmp_root);
	int rc = system(cmd);
	char *dump = tf_slurp(tmp_root, "chromium.out", NULL);
	snprintf(log, logcap, "status %d; %s", rc, dump ? "" : "no output");
	if (!dump)
		return -1;
	const char *m = strstr(dump, "RL-DECODED ");
	int n = -1;
	if (m) {
		char *p;
		n = (int)strtol(m + strlen("RL-DECODED "), &p, 10);
		for (int i = 0; i < n && i < cap && *p == ':'; i++)
			w[i] = strtol(p + 1, &p, 10);
	}
	free(dump);
	return n;
}

static void test_report_html_chromium(void **state)
{
	(void)state;
	if (system("command -v chromium >/dev/null 2>&1") != 0)
		fail_msg("chromium is not installed: the report's page cannot be checked (make deps installs it)");
	char dir[256], *msg;
	fixture(dir, sizeof(dir), "html");
	int rc = run_report(dir, &msg);
	if (rc != 0)
		fail_msg("report failed (%d): %s", rc, msg);
	free(msg);
	/* a copy of the page, its policy (which forbids scripts) taken out, and a script that
	 * writes each image's decoded width into the page; one broken image added last, which
	 * must come back 0, so that the check itself is seen to fail */
	size_t len;
	char *html = tf_slurp(dir, "report.html", &len);
	assert_non_null(html);
	char *csp = strstr(html, "<meta http-equiv=\"Content-Security-Policy\"");
	assert_non_null(csp);
	char *csp_end = strchr(csp, '>');
	assert_non_null(csp_end);
	memmove(csp, csp_end + 1, strlen(csp_end + 1) + 1);
	char *end = strstr(html, "</body>");
	assert_non_null(end);
	*end = '\0';
	char page[300];
	snprintf(page, sizeof(page), "%s/check.html", tmp_root);
	FILE *f = fopen(page, "wb");
	assert_non_null(f);
	fputs(html, f);
	fputs("<img src=\"data:image/png;base64,iVBORw0KGgoAAAAAbroken\" alt=\"broken\">\n"
	      "<script>window.addEventListener('load', function () {\n"
	      "  var o = '', im = document.images;\n"
	      "  for (var i = 0; i < im.length; i++) o += ':' + (im[i].complete ? im[i].naturalWidth : -1);\n"
	      "  var p = document.createElement('pre');\n"
	      "  p.textContent = 'RL-' + 'DECODED ' + im.length + o;\n"
	      "  document.body.appendChild(p);\n"
	      "});</script>\n</body>\n</html>\n", f);
	assert_int_equal(fclose(f), 0);
	free(html);
	long w[64];
	char log[128];
	int n = chromium_widths(page, w, 64, log, sizeof(log));
	if (n != NCHARTS + 1)
		fail_msg("chromium saw %d images, %d expected (%s)", n, NCHARTS + 1, log);
	for (int i = 0; i < NCHARTS; i++)
		if (w[i] <= 0)
			fail_msg("chart %d of the page was not decoded (naturalWidth %ld)", i + 1, w[i]);
	assert_int_equal(w[NCHARTS], 0);

	/* the page as written, through the check the bench report's page passes too */
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/page' && bash '%s' '%s/report.html' '%s/page'", tmp_root, PAGE_CHECK, dir,
		 tmp_root);
	if (system(cmd) != 0)
		fail_msg("report.html failed the page check (its FAIL line above)");
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/rl_study_report_XXXXXX");
	return mkdtemp(tmp_root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_content),
		cmocka_unit_test(test_report_placement),
		cmocka_unit_test(test_report_merged_limits),
		cmocka_unit_test(test_report_no_gnuplot),
		cmocka_unit_test(test_report_gnuplot_fails),
		cmocka_unit_test(test_report_long_traffic),
		cmocka_unit_test(test_report_sparse_traffic),
		cmocka_unit_test(test_report_one_bin),
		cmocka_unit_test(test_report_relative_path_costs),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_csv_roundtrip),
	};
	const struct CMUnitTest html[] = {
		cmocka_unit_test(test_report_html_chromium),
	};
	if (argc > 1 && strcmp(argv[1], "html") == 0)
		return cmocka_run_group_tests_name("study_report_html", html, setup, teardown);
	return cmocka_run_group_tests_name("study_report", tests, setup, teardown);
}
