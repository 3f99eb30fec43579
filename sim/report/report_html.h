/*
 * report_html.h - the one page layer of both reports: a report's Markdown
 * (REPORT.md, as `ratelab report` and `ratelab study` write it) as one
 * self-contained report.html. The page holds its style and one script
 * inline, each chart embedded as a data:image/png;base64 URI read from the
 * report's directory, and a content security policy that lets it fetch
 * nothing and run no script but its own (named by its SHA-256).
 *
 * The Markdown is the reports' own subset: "#".."######" headings,
 * paragraphs, "- " lists, pipe tables (the first row the header, right
 * alignment from a "---:" separator cell), an image "![ALT](FILE)" alone
 * on its line, inline `code`, **strong** and *emphasis*, and a backslash
 * before ASCII punctuation meaning that character (CommonMark's escapes,
 * as sr_md writes them; "\|" stays inside its table cell).
 *
 * The page: a table of contents (each "##" and "###" heading, linked to
 * its id) before the first "##" heading; every table sorts by a column
 * when its header cell is clicked (or Enter pressed on it): numerically
 * when each of the column's cells that is neither empty nor "-" begins
 * with a number, else as text; cells empty or "-" last either way; a
 * second click reverses. A table's summary rows (a total, compare's
 * geomean) are the rows at its end whose first cell begins with
 * **strong** text, the first row under the header excepted (it is always
 * a body row): they are the table's <tfoot>, which the sort leaves last.
 * A table wider than the page scrolls sideways with its first column
 * pinned (position: sticky), so that no row loses its name.
 */
#ifndef RATELAB_SIM_REPORT_HTML_H
#define RATELAB_SIM_REPORT_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "report_text.h"

struct rp_page {
	const char *title; /* the page's <title>, plain text */
	const char *mark;  /* NULL, or a comment's text after <!DOCTYPE html> naming the writer
			    * (a command that replaces only the pages it wrote checks it) */
	const char *dir;   /* the directory image files are named from */
	const char *who;   /* the prefix of every message: "ratelab report: " */
	bool missing_ok;   /* a chart not drawn yet is named in its place; else its absence is an error */
	FILE *err;
};

/*
 * Appends the page of the Markdown md to o. Returns 0, or 1 after one
 * message on p->err ("WHO PATH: reason": a chart that cannot be read, or
 * is missing when !missing_ok). Running out of memory sets o->oom.
 */
int rp_html_page(const struct rp_page *p, const char *md, struct sr_buf *o);

#endif
