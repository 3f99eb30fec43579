/*
 * study_dir.c - a study's output directory, replaced whole: the new study
 * is written into a fresh sibling directory (DIR.study-XXXXXX), then moved
 * into place by rename(2), the earlier study (if any) moved aside first and
 * then removed. A failed run leaves the earlier study as it was, and no
 * file of an earlier study survives a new one. A directory is a study's
 * when its meta.csv begins "name,value" and names a ratelab_version; any
 * other non-empty directory is refused, never emptied.
 */
#define _XOPEN_SOURCE 700
#include "study_dir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_study(const char *dir)
{
	char path[PATH_MAX], line[256];
	bool head = false, version = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/meta.csv", dir);
	if (!(f = fopen(path, "r")))
		return false;
	for (int n = 0; fgets(line, sizeof(line), f); n++) {
		head = head || (n == 0 && strcmp(line, "name,value\n") == 0);
		version = version || strncmp(line, "ratelab_version,", 16) == 0;
	}
	fclose(f);
	return head && version;
}

static bool is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

int sim_study_dir_check(const char *dir, char *msg, size_t msg_len)
{
	struct stat st;

	if (!*dir) {
		snprintf(msg, msg_len, "is empty");
		return -1;
	}
	if (stat(dir, &st) != 0)
		return errno == ENOENT ? 0 : (snprintf(msg, msg_len, "cannot be read: %s", strerror(errno)), -1);
	if (!S_ISDIR(st.st_mode)) {
		snprintf(msg, msg_len, "is not a directory");
		return -1;
	}
	if (!is_empty(dir) && !is_study(dir)) {
		snprintf(msg, msg_len, "is not empty and holds no study (no meta.csv of ratelab study): "
			 "refusing to replace it");
		return -1;
	}
	return 0;
}

/* mkdir -p of dir's parent. */
static int make_parent(const char *dir)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return -1;
	char *slash = strrchr(p, '/');
	if (!slash || slash == p)
		return 0;
	*slash = '\0';
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

int sim_study_dir_begin(const char *dir, char *tmp, size_t tmp_len, FILE *err)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (make_parent(dir) != 0 ||
	    snprintf(tmp, tmp_len, "%.*s.study-XXXXXX", (int)len, dir) >= (int)tmp_len || !mkdtemp(tmp)) {
		fprintf(err, "ratelab study: cannot create a directory beside '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void sim_study_dir_remove(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int sim_study_dir_commit(const char *dir, const char *tmp, FILE *err)
{
	char old[PATH_MAX];
	struct stat st;
	bool had = stat(dir, &st) == 0;

	if (had) {
		size_t len = strlen(dir);
		while (len > 1 && dir[len - 1] == '/')
			len--;
		snprintf(old, sizeof(old), "%.*s.old-XXXXXX", (int)len, dir);
		/* a unique name, then the earlier study renamed onto it */
		if (!mkdtemp(old) || rename(dir, old) != 0) {
			fprintf(err, "ratelab study: cannot move the earlier study '%s' aside: %s\n", dir,
				strerror(errno));
			return -1;
		}
	}
	if (rename(tmp, dir) != 0) {
		fprintf(err, "ratelab study: cannot move the study into '%s': %s\n", dir, strerror(errno));
		if (had)
			rename(old, dir);
		return -1;
	}
	if (had)
		sim_study_dir_remove(old);
	return 0;
}
