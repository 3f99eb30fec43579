/*
 * import_impl.h - the importer's parts (import.c reads the files and
 * builds the trace; import_combined.c, import_alb.c, import_haproxy.c,
 * import_jsonl.c, import_csv.c and the shared trace line reader read one
 * line, or one CSV record, each). Private to the simulator library.
 *
 * A line reader fills struct imp_fields with pointers into the line or
 * into the importer's scratch buffers, valid until the next line, and
 * returns NULL, or the reason the line is bad (a static string or
 * imp->why).
 */
#ifndef RATELAB_SIM_IMPORT_IMPL_H
#define RATELAB_SIM_IMPORT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "import.h"
#include "keymap.h"

enum imp_format { IMP_COMBINED, IMP_JSONL, IMP_CSV, IMP_TRACE, IMP_ALB, IMP_CADDY, IMP_VHOST, IMP_HAPROXY,
		  IMP_NFORMATS };
enum imp_key { IMP_KEY_IP, IMP_KEY_USER, IMP_KEY_PATH, IMP_KEY_IP_PATH };

struct imp_fields {
	int64_t t_ns;         /* epoch ns, or the trace's own ns */
	const char *key;      /* the key's bytes: key[0..key_len) then key2[0..key2_len) */
	size_t key_len;
	const char *key2;
	size_t key2_len;
	int64_t cost;         /* units, in [0, RL_COST_MAX]; 0 (a cost field's) takes nothing */
	bool no_offset;       /* the time had no UTC offset: --tz (UTC by default) was assumed */
	bool anon;            /* --key user: no user, keyed by the address */
	bool settle;          /* a real cost and a response time were read (import.h) */
	int64_t actual;       /* units, in [0, RL_COST_MAX] */
	int64_t dur_ns;       /* ns, in [0, RL_TIME_MAX_NS]: DONE_T = T + dur_ns */
};

/* A growable byte buffer that only grows. */
struct imp_buf {
	char *p;
	size_t len, cap;
};

/* Makes room for n more bytes; false when out of memory. */
bool imp_buf_reserve(struct imp_buf *b, size_t n);

struct imp {
	enum imp_format format;
	enum imp_key key_mode;
	int64_t unit_ns;             /* --time-unit, 0 when not given */
	const char *time_field, *key_field, *cost_field;
	const char *actual_field, *duration_field; /* settles (import.h), NULL when not asked */
	int64_t duration_unit_ns;
	const char *time_format;     /* --time-format, NULL when not given */
	const char *key_addr_field;  /* caddy: the key "HOST:PORT" when key_field is missing (Caddy < 2.5) */
	int tz_s;                    /* --tz: seconds east of UTC of times without an offset */
	bool want_cost;
	bool trace_cost;             /* a trace line had a COST */
	int64_t trace_res_ns;        /* a trace's "# ratelab trace:" line: its resolution, 0 if none */
	bool trace_spread;           /* ... and whether it was spread */
	enum sim_import_skip reason; /* why the last bad line is bad */
	/* csv: the header's columns of the fields, -1 absent; ncols the header's width */
	int col_time, col_key, col_cost, col_actual, col_dur, ncols;
	char **cells;                /* csv: the record's fields, split by the one reader (csv.h) in s_skip */
	size_t ncells, ccap;
	long why_line;               /* the bad line's problem: lines after the record's first (csv), else 0 */
	char clf_text[26];           /* combined: the last time's text and value */
	int64_t clf_ns;
	bool clf_ok;
	struct imp_buf s_time, s_key, s_cost, s_skip; /* decoded field values; s_skip the others' */
	struct imp_buf s_actual, s_dur;
	struct imp_buf names;        /* jsonl: the member names met, csv: the header's; dotted paths */
	char why[512]; /* a reason with a quoted value (parse.h: at most RL_QUOTE_SIZE bytes) */
};

const char *imp_combined(struct imp *im, char *line, size_t len, struct imp_fields *f);
const char *imp_jsonl(struct imp *im, char *line, size_t len, struct imp_fields *f);
/* The header line: finds the columns; the reason when a field is missing. */
const char *imp_csv_header(struct imp *im, char *line, size_t len);
const char *imp_csv(struct imp *im, char *line, size_t len, struct imp_fields *f);
const char *imp_trace(struct imp *im, char *line, size_t len, struct imp_fields *f);
const char *imp_vhost(struct imp *im, char *line, size_t len, struct imp_fields *f);
const char *imp_alb(struct imp *im, char *line, size_t len, struct imp_fields *f);
const char *imp_haproxy(struct imp *im, char *line, size_t len, struct imp_fields *f);

/*
 * The key of a request line whose fields are the client's address
 * host[0..host_len) and the request "METHOD TARGET PROTOCOL" at
 * req[0..req_len): by im->key_mode ip, path or ip+path (user is not
 * asked of these formats). The path is the target's without its query,
 * and, for an absolute target "http://host:port/p", without the scheme and
 * host. NULL, or the reason.
 */
const char *imp_request_key(struct imp *im, const char *host, size_t host_len, const char *req, size_t req_len,
			    struct imp_fields *f);

/*
 * A field's time text: --time-format when given; else ISO 8601 / RFC 3339
 * (without an offset: --tz), the common log format's time (also in
 * brackets), or a number of --time-unit. f->no_offset says when --tz was
 * assumed.
 */
const char *imp_time(struct imp *im, const char *s, size_t len, struct imp_fields *f);
/* A field's cost text: an integer in [0, RL_COST_MAX] (0: a request that takes nothing). */
const char *imp_cost(struct imp *im, const char *s, size_t len, int64_t *cost);

/*
 * The settle fields' texts (either NULL: missing) into f->actual and
 * f->dur_ns (import_settle.c): NULL, or the reason (reason cost for the
 * real cost, time for the response time: a negative value, not a number).
 */
const char *imp_settle_fields(struct imp *im, const char *actual, size_t alen, const char *dur, size_t dlen,
			      struct imp_fields *f);

struct imp_rec;

/* The settles of the records, in input order until sorted (import_settle.c). */
struct imp_settles {
	uint32_t *actual;  /* units */
	int64_t *dur_ns;   /* ns */
	size_t cap;
	bool on;           /* some record settles: every record has them (ACTUAL = COST, 0 ns before) */
};

/* Record n's settle (f's, or none) with rec[0..n) before it; false when out of memory. */
bool imp_settles_put(struct imp_settles *s, const struct imp_rec *rec, size_t n, const struct imp_fields *f);

/* rec[0..n) and the settles sorted together by time, stably (imp_sort's order); false when out of memory. */
bool imp_settles_sort(struct imp_settles *s, struct imp_rec *rec, size_t n);

/*
 * t->actual and t->done_ns from the sorted settles and t's final times (DONE_T = T + the response
 * time); 1 when one passes RL_TIME_MAX_NS, -1 when out of memory, 0 else.
 */
int imp_settles_build(struct imp_settles *s, struct sim_trace *t);

void imp_settles_free(struct imp_settles *s);

/*
 * A file's lines, through zlib: a file that opens with gzip's magic bytes
 * (several gzip members one after the other too) is decompressed, any
 * other read as it is; bytes after the last gzip member that do not open
 * another are counted in trailing, not read. A line is returned without
 * its '\n', NUL-terminated in place; lines longer than IMP_LINE_MAX are
 * returned cut (too_long set, the first bytes kept for the message).
 */
#define IMP_LINE_MAX ((size_t)16 << 20)
struct imp_reader {
	int fd;          /* -1 when file is read */
	FILE *file;      /* imp_reader_open_file's, else NULL */
	void *gz;        /* the input buffer and inflate state (import_read.c) */
	char *buf;
	size_t cap, pos, len;
	bool eof, too_long;
	long lineno;     /* of the line last returned */
	uint64_t trailing; /* bytes after the gzip data, not read */
	int err, err_no; /* after -1: what failed, and errno for an I/O error */
	const char *zmsg;
};

/* Opens path ("-": standard input); false with errno set. */
bool imp_reader_open(struct imp_reader *r, const char *path);
/* Reads the open file in from where it stands, through stdio; the reader does not close it. */
bool imp_reader_open_file(struct imp_reader *r, FILE *in);
/* 1 and the line, 0 at the end, -1 on a read error (imp_reader_error says which). */
int imp_reader_next(struct imp_reader *r, char **line, size_t *len);
const char *imp_reader_error(struct imp_reader *r);
/* After -1: true when the file's compressed data is corrupt or cut short (bad input, not I/O). */
bool imp_reader_bad_data(struct imp_reader *r);
void imp_reader_close(struct imp_reader *r);

/*
 * The keys met, interned in first-seen order: id -> name (escaped: a
 * blank or control byte written %XX, so that a name is one token of a
 * trace line). Zeroed, then imp_keys_init.
 */
#define IMP_KEYS_MAX ((size_t)UINT32_MAX - 1)
struct imp_keys {
	struct sim_keymap map;     /* name -> id + 1 */
	char **names;
	size_t nkeys, cap;
	uint32_t last_id;          /* the last key interned: the next line's is often the same */
	size_t last_len;
	bool have_last;
	struct imp_buf build;      /* a key being built: joined, escaped */
};

/* RL_OK, or sim_keymap_init's error (RL_EINVAL: a bad SIM_HASH_SEED_ENV). */
int imp_keys_init(struct imp_keys *k);
/* The id of the line's key (key then key2), interned; -1 when out of memory or past IMP_KEYS_MAX. */
int64_t imp_keys_intern(struct imp_keys *k, const struct imp_fields *f);
void imp_keys_free(struct imp_keys *k);

/* One request as read, in input order until sorted. */
struct imp_rec {
	int64_t t_ns;
	uint32_t key, cost;
};

/*
 * Sorts r[0..n) by time, stably (equal times keep their order), in
 * O(n log n), and in about O(n) when every request is near its place, as
 * in a log written at completion. False when out of memory (r unchanged).
 */
bool imp_sort(struct imp_rec *r, size_t n);

/*
 * r sorted, every time a multiple of res_ns: the m requests of one time T
 * become T + k * res_ns / m, k = 0 .. m-1 in their order (rounded down).
 */
void imp_spread(struct imp_rec *r, size_t n, int64_t res_ns);

#endif
