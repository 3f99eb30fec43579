/*
 * test_ini_reader.c - the INI line reader shared by the tier config and
 * the scenario loader (algos/src/ini_reader.h), driven as rl__ini_parse drives it:
 * exact line counts, whole lines up to the buffer, refusals of long lines,
 * NUL bytes, indentation and bad headers naming their line, the BOM, read
 * errors told from the end of the file, and the stop flag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ini_reader.h"

#define NUM 200 /* a small buffer: the refusals are the same at RL_INI_LINE_MAX */

struct seen {
	char names[8][64];
	long lines[8];
	int n;
	bool refuse; /* on_section answers false */
};

static bool on_section(void *arg, const char *name, long line)
{
	struct seen *s = arg;

	if (s->n < 8) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
		s->lines[s->n++] = line;
	}
	return !s->refuse;
}

/* Reads text (len bytes) to the end; returns the lines handed out. */
static int read_all(const char *text, size_t len, struct rl__ini_reader *r, struct seen *s, char out[][NUM])
{
	static char buf[1 << 12];
	int n = 0;
	char str[NUM];

	memcpy(buf, text, len);
	r->f = fmemopen(buf, len, "r");
	assert_non_null(r->f);
	r->on_section = on_section;
	r->arg = s;
	while (rl__ini_read_line(str, NUM, r)) {
		if (out)
			snprintf(out[n], NUM, "%s", str);
		n++;
	}
	fclose(r->f);
	return n;
}

static void counts_lines_and_reports_sections(void **u)
{
	const char text[] = "; c\n[tier  a ]\nx = 1\n\n   \n[clients] ; note\r\ny = 2";
	struct rl__ini_reader r = { 0 };
	struct seen s = { 0 };
	char out[8][NUM];

	(void)u;
	assert_int_equal(read_all(text, sizeof(text) - 1, &r, &s, out), 7);
	assert_int_equal(r.lineno, 7);
	assert_int_equal(r.error_line, 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.names[0], "tier  a");
	assert_int_equal(s.lines[0], 2);
	assert_string_equal(s.names[1], "clients");
	assert_int_equal(s.lines[1], 6);
	assert_string_equal(out[2], "x = 1\n");
	assert_string_equal(out[6], "y = 2\n"); /* the last line, without its newline in the file */
}

/* 199 characters fit a 200-byte buffer whole; 200 are refused, not split into two lines. */
static void long_lines(void **u)
{
	char text[600];
	struct rl__ini_reader r = { 0 };
	struct seen s = { 0 };
	char out[8][NUM];

	(void)u;
	memset(text, 'a', 199);
	memcpy(text + 199, "\nb\n", 3);
	assert_int_equal(read_all(text, 202, &r, &s, out), 2);
	assert_int_equal(strlen(out[0]), 199); /* no room for the newline: the parser needs none */
	assert_string_equal(out[1], "b\n");

	memset(&r, 0, sizeof(r));
	memcpy(text, "x = 1\n", 6);
	memset(text + 6, ';', 200);
	memcpy(text + 206, "\ny = 2\n", 7);
	assert_int_equal(read_all(text, 213, &r, &s, NULL), 1);
	assert_int_equal(r.error_line, 2);
	assert_string_equal(r.error, "line longer than 199 characters");
}

static void refusals_name_their_line(void **u)
{
	static const struct {
		const char *text;
		size_t len;
		long line;
		const char *error;
	} cases[] = {
		{ "a = 1\nb = x\0y\n", 14, 2, "NUL byte in the line" },
		{ "[s]\n  key = 1\n", 14, 2, "indented line" },
		{ "[s]\n\t[t]\n", 9, 2, "indented line" },
		/* fuzz_scenario's finding: the parser skips \v and \f as it skips spaces */
		{ "[s]\n\v[t]\n", 9, 2, "indented line" },
		{ "[s]\n\fk = 1\n", 11, 2, "indented line" },
		{ "; c\n\n[s\n", 8, 3, "section header without ']'" },
		{ "[s] x\n", 6, 1, "text after the section header: 'x'" },
	};
	(void)u;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rl__ini_reader r = { 0 };
		struct seen s = { 0 };
		read_all(cases[i].text, cases[i].len, &r, &s, NULL);
		if (r.error_line != cases[i].line || strncmp(r.error, cases[i].error, strlen(cases[i].error)) != 0)
			fail_msg("case %zu: line %ld '%s', want line %ld '%s'", i, r.error_line, r.error,
				 cases[i].line, cases[i].error);
		/* after a refusal nothing more is read */
		char str[NUM];
		assert_null(rl__ini_read_line(str, NUM, &r));
	}
}

/* A byte order mark is skipped on line 1 only, so "[s]" there is a section. */
static void byte_order_mark(void **u)
{
	const char text[] = "\xEF\xBB\xBF[s]\n\xEF\xBB\xBFx = 1\n";
	struct rl__ini_reader r = { 0 };
	struct seen s = { 0 };
	char out[4][NUM];

	(void)u;
	assert_int_equal(read_all(text, sizeof(text) - 1, &r, &s, out), 2);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.names[0], "s");
	assert_string_equal(out[1], "\xEF\xBB\xBFx = 1\n");
}

/* A read error stops with a message on the next line's number, never a silent end. */
static void read_error_is_no_end_of_file(void **u)
{
	struct rl__ini_reader r = { 0 };
	char str[NUM];

	(void)u;
	r.f = fopen("/dev/null", "w"); /* reading a write-only stream fails */
	assert_non_null(r.f);
	assert_null(rl__ini_read_line(str, NUM, &r));
	assert_int_equal(r.error_line, 1);
	assert_true(strncmp(r.error, "cannot read: ", 13) == 0);
	fclose(r.f);
}

static void stop_flag_and_refusing_section(void **u)
{
	const char text[] = "a = 1\n[s]\nb = 2\n";
	struct rl__ini_reader r = { 0 };
	struct seen s = { .refuse = true };
	bool stop = false;

	(void)u;
	assert_int_equal(read_all(text, sizeof(text) - 1, &r, &s, NULL), 1); /* stops at [s] */
	assert_int_equal(r.lineno, 2);
	assert_int_equal(r.error_line, 0); /* the caller's refusal, the caller's message */

	memset(&r, 0, sizeof(r));
	memset(&s, 0, sizeof(s));
	stop = true;
	r.stop = &stop;
	assert_int_equal(read_all(text, sizeof(text) - 1, &r, &s, NULL), 0);
}

/* rl__ini_parse's records for the handler. */
struct parsed {
	char rec[8][80];
	size_t len[8]; /* each value's length */
	int n;
	int refuse_value; /* a value equal to "bad" answers 0 */
};

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parsed *p = user;

	if (p->n < 8) {
		p->len[p->n] = strlen(value);
		snprintf(p->rec[p->n++], sizeof(p->rec[0]), "%s|%s|%.60s", section, name, value);
	}
	return !(p->refuse_value && strcmp(value, "bad") == 0);
}

static int parse_text(const char *text, size_t len, struct rl__ini_reader *r, struct parsed *p)
{
	static char buf[RL_INI_LINE_MAX + 200];
	int rc;

	memcpy(buf, text, len);
	r->f = fmemopen(buf, len, "r");
	assert_non_null(r->f);
	rc = rl__ini_parse(r, on_key, p);
	fclose(r->f);
	return rc;
}

/* The parser splits as inih did (name = value, name: value, comments) but
 * takes lines up to RL_INI_LINE_MAX whole: inih cut them at 199. */
static void parser_forms_and_long_lines(void **u)
{
	static const char text[] = "; c\n# c\n\n[ a b ]\nx = 1 ; note\ny: two words\nz=a;b\n[c]\nq =\n";
	static char big[RL_INI_LINE_MAX + 100];
	struct rl__ini_reader r = { 0 };
	struct parsed p = { 0 };

	(void)u;
	assert_int_equal(parse_text(text, sizeof(text) - 1, &r, &p), 0);
	assert_int_equal(p.n, 4);
	assert_string_equal(p.rec[0], "a b|x|1");
	assert_string_equal(p.rec[1], "a b|y|two words");
	assert_string_equal(p.rec[2], "a b|z|a;b"); /* ';' without a space before it is text */
	assert_string_equal(p.rec[3], "c|q|");

	/* errors: the first bad line is returned and the parse goes on */
	memset(&r, 0, sizeof(r));
	memset(&p, 0, sizeof(p));
	p.refuse_value = 1;
	static const char bad[] = "[s]\nok = 1\nno equals sign\nk = bad\nlast = 2\n";
	assert_int_equal(parse_text(bad, sizeof(bad) - 1, &r, &p), 3);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.rec[2], "s|last|2");

	/* a 1000-character value arrives whole; the line after keeps its number */
	memset(&r, 0, sizeof(r));
	memset(&p, 0, sizeof(p));
	p.refuse_value = 1;
	size_t n = (size_t)snprintf(big, sizeof(big), "[s]\nlong = ");
	memset(big + n, 'v', 1000);
	n += 1000;
	n += (size_t)snprintf(big + n, sizeof(big) - n, "\nk = bad\n");
	assert_int_equal(parse_text(big, n, &r, &p), 3);
	assert_int_equal(p.len[0], 1000);
	assert_int_equal(r.error_line, 0);

	/* one character past RL_INI_LINE_MAX: refused, naming its line */
	memset(&r, 0, sizeof(r));
	memset(&p, 0, sizeof(p));
	n = (size_t)snprintf(big, sizeof(big), "[s]\nk = 1\n");
	memset(big + n, 'w', RL_INI_LINE_MAX + 1);
	n += RL_INI_LINE_MAX + 1;
	big[n++] = '\n';
	assert_int_equal(parse_text(big, n, &r, &p), 0);
	assert_int_equal(r.error_line, 3);
	assert_string_equal(r.error, "line longer than 65535 characters");
	assert_int_equal(p.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_lines_and_reports_sections),
		cmocka_unit_test(long_lines),
		cmocka_unit_test(refusals_name_their_line),
		cmocka_unit_test(byte_order_mark),
		cmocka_unit_test(read_error_is_no_end_of_file),
		cmocka_unit_test(stop_flag_and_refusing_section),
		cmocka_unit_test(parser_forms_and_long_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
