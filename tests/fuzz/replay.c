/*
 * Replays inputs through a fuzz target without libFuzzer: built with the
 * normal compiler (and the sanitizers of UMT_SANITIZE), linked with one
 * target's LLVMFuzzerTestOneInput(), registered with ctest.
 *
 *   fuzz_replay_TARGET PATH...
 *
 * Each PATH is an input file or a directory whose files (not recursive,
 * names starting with '.' skipped) are run in name order. A broken
 * invariant aborts; an unreadable or missing path, or no input at all, is
 * an error too, so that a misconfigured test cannot pass by running nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Runs one file. @return 0, or -1 when it cannot be read. */
static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (fp == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (buf == NULL) {
			fprintf(stderr, "%s: out of memory\n", path);
			fclose(fp);
			return -1;
		}
		n += fread(buf + n, 1, cap - n, fp);
		if (n < cap)
			break;
		uint8_t *bigger = realloc(buf, cap * 2);
		if (bigger == NULL)
			free(buf);
		buf = bigger;
		cap *= 2;
	}
	int bad = ferror(fp);
	fclose(fp);
	if (bad) {
		fprintf(stderr, "%s: read error\n", path);
		free(buf);
		return -1;
	}
	/* an exact-size copy, as libFuzzer passes it */
	uint8_t *input = malloc(n ? n : 1);
	if (input == NULL) {
		free(buf);
		return -1;
	}
	memcpy(input, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(input, n);
	free(input);
	return 0;
}

static int skip_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Runs every file of @p dir. @return the number run, or -1. */
static long run_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, skip_hidden, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	long done = 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(path) < 0)
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	long total = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : (run_file(argv[i]) < 0 ? -1 : 1);
		if (n < 0)
			return 1;
		printf("%s: %ld inputs\n", argv[i], n);
		total += n;
	}
	if (total == 0) {
		fprintf(stderr, "no input replayed\n");
		return 1;
	}
	printf("%ld inputs replayed without a failure\n", total);
	return 0;
}
