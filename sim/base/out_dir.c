/*
 * out_dir.c - a command's output folder, known by its manifest (out_dir.h).
 * The stage lives inside DIR, so that every rename stays on one file
 * system and a failed run leaves nothing beside DIR; a stage left by a
 * killed run is foreign to the next one, which names it.
 */
#define _XOPEN_SOURCE 700
#include "out_dir.h"
#include "out_file.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAGE_PREFIX ".ratelab-new-"

struct entry {
	char *rel;
	bool dir;
};

struct entries {
	struct entry *e;
	size_t n, cap;
	bool oom;
};

static void entries_free(struct entries *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->e[i].rel);
	free(l->e);
	*l = (struct entries){ 0 };
}

static void entries_add(struct entries *l, const char *rel, bool dir)
{
	if (l->oom)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct entry *g = realloc(l->e, cap * sizeof(*g));
		if (!g) {
			l->oom = true;
			return;
		}
		l->e = g;
		l->cap = cap;
	}
	if (!(l->e[l->n].rel = strdup(rel))) {
		l->oom = true;
		return;
	}
	l->e[l->n++].dir = dir;
}

/* The entry named rel, or NULL. */
static const struct entry *entries_find(const struct entries *l, const char *rel)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->e[i].rel, rel) == 0)
			return &l->e[i];
	return NULL;
}

static bool join(char *out, size_t len, const char *a, const char *b)
{
	size_t al = strlen(a), bl = strlen(b);
	const char *b_or_a = *a ? a : b;

	if (!*a || !*b) {
		size_t n = strlen(b_or_a);
		if (n >= len)
			return false;
		memcpy(out, b_or_a, n + 1);
		return true;
	}
	bool slash = a[al - 1] != '/';
	if (al + slash + bl >= len)
		return false;
	memcpy(out, a, al);
	if (slash)
		out[al] = '/';
	memcpy(out + al + slash, b, bl + 1);
	return true;
}

/*
 * Reads DIR's manifest into l and its command into cmd. 1 when there is
 * none, 0 when read, -1 with the reason in msg.
 */
static int manifest_read(const char *dir, char *cmd, size_t cmd_len, struct entries *l, char *msg, size_t msg_len)
{
	char path[SIM_OUT_PATH_MAX], line[SIM_OUT_PATH_MAX + 16], q[2 * SIM_OUT_PATH_MAX];
	FILE *f;
	long n = 0;
	int rc = 0;

	if (!join(path, sizeof(path), dir, SIM_OUT_MANIFEST)) {
		snprintf(msg, msg_len, "is too long a path");
		return -1;
	}
	if (!(f = fopen(path, "r"))) {
		if (errno == ENOENT)
			return 1;
		snprintf(msg, msg_len, "holds a manifest %s that cannot be read: %s", sim_out_quote(q, sizeof(q), path),
			 strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		n++;
		if (len == 0 || line[len - 1] != '\n')
			rc = -1;
		else
			line[len - 1] = '\0';
		if (rc)
			break;
		if (n == 1)
			rc = strcmp(line, "ratelab-manifest 1") == 0 ? 0 : -1;
		else if (n == 2 && strncmp(line, "command ", 8) == 0 && len - 9 < cmd_len && line[8])
			memcpy(cmd, line + 8, len - 8);
		else if (n > 2 && strncmp(line, "file ", 5) == 0 && line[5])
			entries_add(l, line + 5, false);
		else if (n > 2 && strncmp(line, "dir ", 4) == 0 && line[4])
			entries_add(l, line + 4, true);
		else
			rc = -1;
		/* no entry may climb out of DIR */
		if (rc == 0 && n > 2 && (strchr(line, ' ')[1] == '/' || strstr(line, "..")))
			rc = -1;
	}
	if (rc == 0 && (ferror(f) || n < 2))
		rc = -1;
	fclose(f);
	if (rc == 0 && l->oom)
		snprintf(msg, msg_len, "cannot be checked: out of memory");
	else if (rc)
		snprintf(msg, msg_len, "holds a manifest %s that is not ratelab's (line %ld): refusing to write into it",
			 sim_out_quote(q, sizeof(q), path), n);
	return rc == 0 && l->oom ? -1 : rc;
}

struct input_id {
	dev_t dev;
	ino_t ino;
};

struct walk {
	const char *dir, *cmd;
	const char *skip;   /* a name at DIR's top not checked (the stage), or NULL */
	const struct entries *listed;
	const struct input_id *ids;
	size_t nids;
	char *msg;
	size_t msg_len;
};

static int no_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

/* Every entry of DIR/rel, in name order, depth first: listed, of its listed kind, no input. */
static int walk_check(const struct walk *w, const char *rel)
{
	char path[SIM_OUT_PATH_MAX], sub[SIM_OUT_PATH_MAX], q[2 * SIM_OUT_PATH_MAX];
	struct dirent **names;
	int n, rc = 0;

	if (!join(path, sizeof(path), w->dir, rel) || (n = scandir(path, &names, no_dots, alphasort)) < 0) {
		snprintf(w->msg, w->msg_len, "cannot be read: %s: %s", sim_out_quote(q, sizeof(q), path), strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		struct stat st;
		if (rc || (!*rel && (strcmp(name, SIM_OUT_MANIFEST) == 0 || (w->skip && strcmp(name, w->skip) == 0))))
			continue;
		if (!join(sub, sizeof(sub), rel, name) || !join(path, sizeof(path), w->dir, sub)) {
			snprintf(w->msg, w->msg_len, "holds a path too long to check");
			rc = -1;
			continue;
		}
		if (lstat(path, &st) != 0) {
			snprintf(w->msg, w->msg_len, "cannot be read: %s: %s", sim_out_quote(q, sizeof(q), path), strerror(errno));
			rc = -1;
			continue;
		}
		const struct entry *e = entries_find(w->listed, sub);
		if (!e || (e->dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
			snprintf(w->msg, w->msg_len,
				 "holds %s, which no earlier `ratelab %s` wrote there (no manifest %s lists it): refusing "
				 "to write into it (give a new or empty folder)",
				 sim_out_quote(q, sizeof(q), path), w->cmd, SIM_OUT_MANIFEST);
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < w->nids; j++)
			if (w->ids[j].dev == st.st_dev && w->ids[j].ino == st.st_ino) {
				snprintf(w->msg, w->msg_len, "holds %s, an input of this run: an input is never overwritten",
					 sim_out_quote(q, sizeof(q), path));
				rc = -1;
			}
		if (!rc && e->dir)
			rc = walk_check(w, sub);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* Checks dir against its manifest (absent: no entry may be there). */
static int check(const char *dir, const char *cmd, const char *const *inputs, size_t ninputs, char *msg,
		 size_t msg_len)
{
	struct entries listed = { 0 };
	struct input_id *ids = calloc(ninputs + 1, sizeof(*ids));
	char was[64] = "";
	size_t nids = 0;
	int rc;

	if (!ids) {
		snprintf(msg, msg_len, "cannot be checked: out of memory");
		return -1;
	}
	for (size_t i = 0; i < ninputs; i++) {
		struct stat st;
		if (inputs[i] && strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0)
			ids[nids++] = (struct input_id){ st.st_dev, st.st_ino };
	}
	rc = manifest_read(dir, was, sizeof(was), &listed, msg, msg_len);
	if (rc == 0 && strcmp(was, cmd) != 0) {
		snprintf(msg, msg_len, "holds the output of `ratelab %s`, not of `ratelab %s`: refusing to write into it",
			 was, cmd);
		rc = -1;
	}
	if (rc >= 0) {
		struct walk w = { dir, cmd, NULL, &listed, ids, nids, msg, msg_len };
		rc = walk_check(&w, "");
	}
	entries_free(&listed);
	free(ids);
	return rc < 0 ? -1 : 0;
}

int sim_out_dir_check(const char *dir, const char *cmd, const char *const *inputs, size_t ninputs, char *msg,
		      size_t msg_len)
{
	struct stat st;

	if (!*dir) {
		snprintf(msg, msg_len, "is empty");
		return -1;
	}
	if (strlen(dir) + 32 >= SIM_OUT_PATH_MAX) {
		snprintf(msg, msg_len, "is too long a path");
		return -1;
	}
	if (stat(dir, &st) != 0)
		return errno == ENOENT ? 0 : (snprintf(msg, msg_len, "cannot be read: %s", strerror(errno)), -1);
	if (!S_ISDIR(st.st_mode)) {
		snprintf(msg, msg_len, "is not a directory");
		return -1;
	}
	/* paths in messages as DIR/NAME, whatever slashes DIR ends in */
	char trimmed[SIM_OUT_PATH_MAX];
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	memcpy(trimmed, dir, len);
	trimmed[len] = '\0';
	return check(trimmed, cmd, inputs, ninputs, msg, msg_len);
}

int sim_mkdir_p(const char *dir)
{
	char p[SIM_OUT_PATH_MAX];

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return -1;
		*c = '/';
	}
	return mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int sim_out_dir_begin(struct sim_out_dir *d, const char *dir, const char *cmd, FILE *err)
{
	char q[2 * SIM_OUT_PATH_MAX];
	size_t len = strlen(dir);
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->cmd = cmd;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len + 32 >= sizeof(d->dir)) {
		fprintf(err, "ratelab %s: --out %s is too long a path\n", cmd, sim_out_quote(q, sizeof(q), dir));
		return -1;
	}
	memcpy(d->dir, dir, len);
	d->dir[len] = '\0';
	d->made = stat(d->dir, &st) != 0;
	memcpy(d->stage, d->dir, len);
	memcpy(d->stage + len, "/" STAGE_PREFIX "XXXXXX", sizeof("/" STAGE_PREFIX "XXXXXX"));
	if ((d->made && sim_mkdir_p(d->dir) != 0) || !mkdtemp(d->stage)) {
		fprintf(err, "ratelab %s: cannot create a folder in %s: %s\n", cmd, sim_out_quote(q, sizeof(q), d->dir),
			strerror(errno));
		d->stage[0] = '\0';
		if (d->made)
			rmdir(d->dir);
		return -1;
	}
	return 0;
}

/* Every entry under base/rel into l, parents before children, in name order. */
static int list_tree(const char *base, const char *rel, struct entries *l)
{
	char path[SIM_OUT_PATH_MAX], sub[SIM_OUT_PATH_MAX];
	struct dirent **names;
	int n, rc = 0;

	if (!join(path, sizeof(path), base, rel) || (n = scandir(path, &names, no_dots, alphasort)) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (rc || !join(sub, sizeof(sub), rel, names[i]->d_name) || !join(path, sizeof(path), base, sub) ||
		    lstat(path, &st) != 0 || strchr(names[i]->d_name, '\n')) {
			rc = -1;
			continue;
		}
		entries_add(l, sub, S_ISDIR(st.st_mode));
		if (S_ISDIR(st.st_mode))
			rc = list_tree(base, sub, l);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc || l->oom ? -1 : 0;
}

/* The manifest of the entries of a and b (b NULL: a alone), written in the stage, renamed into DIR. */
static int manifest_write(const struct sim_out_dir *d, const struct entries *a, const struct entries *b)
{
	char tmp[SIM_OUT_PATH_MAX], path[SIM_OUT_PATH_MAX];
	FILE *f;
	int e;

	if (!join(tmp, sizeof(tmp), d->stage, SIM_OUT_MANIFEST) || !join(path, sizeof(path), d->dir, SIM_OUT_MANIFEST)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!(f = fopen(tmp, "w")))
		return -1;
	fprintf(f, "ratelab-manifest 1\ncommand %s\n", d->cmd);
	for (const struct entries *l = a; l; l = l == a ? b : NULL)
		for (size_t i = 0; i < l->n; i++)
			if (l == a || !entries_find(a, l->e[i].rel))
				fprintf(f, "%s %s\n", l->e[i].dir ? "dir" : "file", l->e[i].rel);
	e = fflush(f) != 0 || ferror(f) ? errno : 0;
	if (fclose(f) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int sim_out_dir_commit(struct sim_out_dir *d, FILE *err)
{
	struct entries old = { 0 }, now = { 0 };
	char from[SIM_OUT_PATH_MAX], to[SIM_OUT_PATH_MAX], q[2 * SIM_OUT_PATH_MAX], msg[2 * SIM_OUT_PATH_MAX + 256];
	char was[64] = "";
	const char *stage = strrchr(d->stage, '/') + 1;
	int rc = 0;

	/* the folder again, as it is now: the stage is the only entry not listed */
	rc = manifest_read(d->dir, was, sizeof(was), &old, msg, sizeof(msg));
	if (rc == 0 && strcmp(was, d->cmd) != 0) {
		snprintf(msg, sizeof(msg), "holds the output of `ratelab %s`", was);
		rc = -1;
	}
	if (rc >= 0) {
		struct walk w = { d->dir, d->cmd, stage, &old, NULL, 0, msg, sizeof(msg) };
		rc = walk_check(&w, "");
	}
	if (rc < 0) {
		fprintf(err, "ratelab %s: --out %s changed during the run: it %s\n", d->cmd,
			sim_out_quote(q, sizeof(q), d->dir), msg);
		entries_free(&old);
		return -1;
	}
	if (list_tree(d->stage, "", &now) != 0) {
		fprintf(err, "ratelab %s: cannot list %s: %s\n", d->cmd, sim_out_quote(q, sizeof(q), d->stage),
			now.oom ? "out of memory" : "a name holds a newline, or it cannot be read");
		rc = -1;
	}
	/* first a manifest listing both runs' files, so that nothing is foreign if this stops half-way */
	if (rc == 0 && manifest_write(d, &now, &old) != 0) {
		fprintf(err, "ratelab %s: cannot write %s/%s: %s\n", d->cmd, sim_out_quote(q, sizeof(q), d->dir), SIM_OUT_MANIFEST,
			strerror(errno));
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < now.n; i++) {
		const struct entry *e = &now.e[i];
		join(from, sizeof(from), d->stage, e->rel);
		join(to, sizeof(to), d->dir, e->rel);
		if (e->dir ? mkdir(to, 0777) != 0 && errno != EEXIST : rename(from, to) != 0) {
			fprintf(err, "ratelab %s: cannot move %s into place: %s\n", d->cmd, sim_out_quote(q, sizeof(q), to),
				strerror(errno));
			rc = -1;
		}
	}
	/* the earlier run's files not written again, then its emptied folders, deepest first */
	for (size_t i = 0; rc == 0 && i < old.n; i++) {
		const struct entry *e = &old.e[i];
		if (!e->dir && !entries_find(&now, e->rel) && join(to, sizeof(to), d->dir, e->rel) && unlink(to) != 0 &&
		    errno != ENOENT) {
			fprintf(err, "ratelab %s: cannot remove the earlier run's %s: %s\n", d->cmd,
				sim_out_quote(q, sizeof(q), to), strerror(errno));
			rc = -1;
		}
	}
	for (size_t i = old.n; rc == 0 && i-- > 0;)
		if (old.e[i].dir && !entries_find(&now, old.e[i].rel) && join(to, sizeof(to), d->dir, old.e[i].rel))
			rmdir(to);
	entries_free(&old);
	if (rc == 0 && manifest_write(d, &now, NULL) != 0) {
		fprintf(err, "ratelab %s: cannot write %s/%s: %s\n", d->cmd, sim_out_quote(q, sizeof(q), d->dir), SIM_OUT_MANIFEST,
			strerror(errno));
		rc = -1;
	}
	/* the stage's folders, now empty, deepest first */
	for (size_t i = now.n; rc == 0 && i-- > 0;)
		if (now.e[i].dir && join(from, sizeof(from), d->stage, now.e[i].rel))
			rmdir(from);
	entries_free(&now);
	if (rc == 0 && rmdir(d->stage) != 0) {
		fprintf(err, "ratelab %s: cannot remove %s: %s\n", d->cmd, sim_out_quote(q, sizeof(q), d->stage), strerror(errno));
		rc = -1;
	}
	if (rc == 0)
		d->stage[0] = '\0';
	return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void sim_out_dir_abort(struct sim_out_dir *d)
{
	if (d->stage[0])
		nftw(d->stage, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	d->stage[0] = '\0';
	if (d->made)
		rmdir(d->dir);
}
