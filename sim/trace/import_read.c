/*
 * import_read.c - model: one buffer per file, refilled by gzread() in
 * large reads and searched for '\n' with memchr(); a line is handed out in
 * place. The buffer grows to hold the longest line, up to IMP_LINE_MAX;
 * past that, a line's middle is dropped as it streams by.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "import_impl.h"

enum { CHUNK = 1 << 18, KEEP = 256 /* bytes kept of a line too long, for its message */ };

bool imp_reader_open(struct imp_reader *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	if (!path || strcmp(path, "-") == 0) {
		int fd = dup(STDIN_FILENO);
		if (fd < 0)
			return false;
		if (!(r->gz = gzdopen(fd, "rb"))) {
			close(fd);
			errno = ENOMEM;
			return false;
		}
	} else if (!(r->gz = gzopen(path, "rb"))) {
		if (!errno)
			errno = ENOMEM;
		return false;
	}
	gzbuffer(r->gz, CHUNK);
	r->cap = 4 * (size_t)CHUNK;
	if (!(r->buf = malloc(r->cap))) {
		gzclose(r->gz);
		r->gz = NULL;
		errno = ENOMEM;
		return false;
	}
	return true;
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
					errno = ENOMEM;
					return -1;
				}
				r->buf = b;
				r->cap *= 2;
			}
		}
		scanned = r->len;
		size_t room = r->cap - r->len - 1;
		int n = gzread(r->gz, r->buf + r->len, room > INT_MAX ? INT_MAX : (unsigned)room);
		if (n < 0)
			return -1;
		if (n == 0) {
			int code;
			gzerror(r->gz, &code);
			if (code != Z_OK)
				return -1;
			r->eof = true;
		}
		r->len += (size_t)n;
	}
}

const char *imp_reader_error(struct imp_reader *r)
{
	int code = Z_OK;
	const char *msg = r->gz ? gzerror(r->gz, &code) : NULL;

	if (code == Z_ERRNO || !msg || !*msg)
		return strerror(errno);
	if (code == Z_BUF_ERROR)
		return "the compressed data ends early (a truncated .gz?)";
	/* zlib's message is "PATH: WHAT"; the caller names the file. */
	const char *what = strstr(msg, ": ");
	return what ? what + 2 : msg;
}

bool imp_reader_bad_data(struct imp_reader *r)
{
	int code = Z_OK;

	if (r->gz)
		gzerror(r->gz, &code);
	return code == Z_BUF_ERROR || code == Z_DATA_ERROR;
}

void imp_reader_close(struct imp_reader *r)
{
	if (r->gz)
		gzclose(r->gz);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}
