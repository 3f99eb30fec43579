/*
 * import_read.c - model: the file read with read(2) (or fread(3), a
 * stdio file the caller opened) in large chunks; when
 * it opens with gzip's magic bytes, through zlib's inflate, member after
 * member (a .gz may be several gzip streams one after the other), the
 * bytes after the last member that do not open another counted as trailing
 * data (gzip(1) warns about them too). The text is kept in one buffer
 * searched for '\n' with memchr(); a line is handed out in place. The
 * buffer grows to hold the longest line, up to IMP_LINE_MAX; past that, a
 * line's middle is dropped as it streams by.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "import_impl.h"

enum { CHUNK = 1 << 18, KEEP = 256 /* bytes kept of a line too long, for its message */ };
enum { ERR_NONE, ERR_IO, ERR_DATA, ERR_CUT };

/* The compressed side: the input buffer and the inflate stream. */
struct gz {
	z_stream z;
	unsigned char in[CHUNK];
	size_t in_pos, in_len;
	bool in_eof, gzip, member_end;
};

/* read(2) through EINTR; -1 with r->err set. */
static long raw_read(struct imp_reader *r, void *dst, size_t n)
{
	if (r->file) { /* stdio's: fread returns short only at the end or on an error */
		size_t k = fread(dst, 1, n, r->file);
		if (k == 0 && ferror(r->file)) {
			r->err = ERR_IO;
			r->err_no = errno ? errno : EIO;
			return -1;
		}
		return (long)k;
	}
	for (;;) {
		ssize_t k = read(r->fd, dst, n);
		if (k >= 0)
			return (long)k;
		if (errno != EINTR) {
			r->err = ERR_IO;
			r->err_no = errno;
			return -1;
		}
	}
}

/* At least n (<= 2) unread input bytes, unless the file ends first. False on a read error. */
static bool need(struct imp_reader *r, size_t n)
{
	struct gz *g = r->gz;

	while (g->in_len - g->in_pos < n && !g->in_eof) {
		memmove(g->in, g->in + g->in_pos, g->in_len - g->in_pos);
		g->in_len -= g->in_pos;
		g->in_pos = 0;
		long k = raw_read(r, g->in + g->in_len, sizeof(g->in) - g->in_len);
		if (k < 0)
			return false;
		g->in_eof = k == 0;
		g->in_len += (size_t)k;
	}
	return true;
}

static bool reader_open(struct imp_reader *r, int fd, FILE *file)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->file = file;
	if (r->fd < 0 && !file)
		return false;
	r->cap = 4 * (size_t)CHUNK;
	struct gz *g = calloc(1, sizeof(*g));
	if (!g || !(r->buf = malloc(r->cap))) {
		free(g);
		if (r->fd >= 0)
			close(r->fd);
		errno = ENOMEM;
		return false;
	}
	r->gz = g;
	if (!need(r, 2)) {
		int e = r->err_no;
		imp_reader_close(r);
		errno = e;
		return false;
	}
	g->gzip = g->in_len >= 2 && g->in[0] == 0x1f && g->in[1] == 0x8b;
	if (g->gzip && inflateInit2(&g->z, 15 + 16) != Z_OK) { /* 15 + 16: a gzip wrapper */
		g->gzip = false;
		imp_reader_close(r);
		errno = ENOMEM;
		return false;
	}
	return true;
}

bool imp_reader_open(struct imp_reader *r, const char *path)
{
	return reader_open(r, !path || strcmp(path, "-") == 0 ? dup(STDIN_FILENO) : open(path, O_RDONLY), NULL);
}

bool imp_reader_open_file(struct imp_reader *r, FILE *in)
{
	return reader_open(r, -1, in);
}

/* Counts what is left of the file as trailing data. 0, or -1 on a read error. */
static long count_rest(struct imp_reader *r)
{
	struct gz *g = r->gz;

	r->trailing += g->in_len - g->in_pos;
	g->in_pos = g->in_len;
	while (!g->in_eof) {
		long k = raw_read(r, g->in, sizeof(g->in));
		if (k < 0)
			return -1;
		g->in_eof = k == 0;
		r->trailing += (uint64_t)k;
	}
	return 0;
}

/* Up to room bytes of text into dst: their count, 0 at the end, -1 on an error (r->err). */
static long produce(struct imp_reader *r, char *dst, size_t room)
{
	struct gz *g = r->gz;

	if (!g->gzip) {
		if (g->in_pos < g->in_len) { /* the bytes looked at for the magic */
			size_t n = g->in_len - g->in_pos < room ? g->in_len - g->in_pos : room;
			memcpy(dst, g->in + g->in_pos, n);
			g->in_pos += n;
			return (long)n;
		}
		return g->in_eof ? 0 : raw_read(r, dst, room > LONG_MAX ? LONG_MAX : room);
	}
	g->z.next_out = (unsigned char *)dst;
	g->z.avail_out = room > UINT_MAX ? UINT_MAX : (unsigned)room;
	unsigned start = g->z.avail_out;
	while (g->z.avail_out == start) {
		if (g->member_end) {
			if (!need(r, 2))
				return -1;
			if (g->in_pos == g->in_len)
				return 0;
			if (g->in_len - g->in_pos < 2 || g->in[g->in_pos] != 0x1f || g->in[g->in_pos + 1] != 0x8b)
				return count_rest(r);
			inflateReset(&g->z);
			g->member_end = false;
		}
		if (g->in_pos == g->in_len && !need(r, 1))
			return -1;
		if (g->in_pos == g->in_len) {
			r->err = ERR_CUT;
			return -1;
		}
		g->z.next_in = g->in + g->in_pos;
		g->z.avail_in = (unsigned)(g->in_len - g->in_pos);
		int rc = inflate(&g->z, Z_NO_FLUSH);
		g->in_pos = g->in_len - g->z.avail_in;
		if (rc == Z_STREAM_END) {
			g->member_end = true;
		} else if (rc == Z_MEM_ERROR) {
			r->err = ERR_IO;
			r->err_no = ENOMEM;
			return -1;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			r->err = ERR_DATA;
			r->zmsg = g->z.msg ? g->z.msg : "invalid compressed data";
			return -1;
		}
	}
	return (long)(start - g->z.avail_out);
}

int imp_reader_next(struct imp_reader *r, char **line, size_t *len)
{
	size_t scanned = r->pos;

	r->too_long = false;
	for (;;) {
		char *nl = memchr(r->buf + scanned, '\n', r->len - scanned);
		if (nl || (r->eof && r->pos < r->len)) {
			char *end = nl ? nl : r->buf + r->len;
			*line = r->buf + r->pos;
			*len = (size_t)(end - *line);
			r->too_long |= *len > IMP_LINE_MAX;
			*end = '\0'; /* room kept: len < cap */
			r->pos = (size_t)(end - r->buf) + (nl != NULL);
			r->lineno++;
			return 1;
		}
		if (r->eof)
			return 0;
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->pos = 0;
		}
		if (r->cap - r->len <= CHUNK) {
			if (r->len >= IMP_LINE_MAX) {
				r->too_long = true;
				r->len = KEEP;
			} else {
				char *b = realloc(r->buf, r->cap * 2);
				if (!b) {
					r->err = ERR_IO;
					r->err_no = ENOMEM;
					return -1;
				}
				r->buf = b;
				r->cap *= 2;
			}
		}
		scanned = r->len;
		long n = produce(r, r->buf + r->len, r->cap - r->len - 1);
		if (n < 0)
			return -1;
		r->eof = n == 0;
		r->len += (size_t)n;
	}
}

const char *imp_reader_error(struct imp_reader *r)
{
	if (r->err == ERR_CUT)
		return "the compressed data ends early (a truncated .gz?)";
	if (r->err == ERR_DATA)
		return r->zmsg;
	return strerror(r->err_no);
}

bool imp_reader_bad_data(struct imp_reader *r)
{
	return r->err == ERR_CUT || r->err == ERR_DATA;
}

void imp_reader_close(struct imp_reader *r)
{
	struct gz *g = r->gz;

	if (g && g->gzip)
		inflateEnd(&g->z);
	free(g);
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}
