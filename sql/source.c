/*
 * libumtrace SQLite module - a trace as the tables see it: the trace
 * handle (opened here, or borrowed from a C caller), its name tables, and
 * what is found on first use under a lock (the index, the module names),
 * reference counted so that cursors and connections share it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "usql.h"

/* A copy of @p s with sqlite3_malloc (NULL for NULL); *ok = 0 when out of memory. */
static char *dup_str(const char *s, int *ok)
{
	if (s == NULL)
		return NULL;
	char *d = sqlite3_mprintf("%s", s);
	if (d == NULL)
		*ok = 0;
	return d;
}

static struct usql_source *source_new(const char *dir, const char *index_dir)
{
	struct usql_source *s = sqlite3_malloc(sizeof *s);
	if (s == NULL)
		return NULL;
	memset(s, 0, sizeof *s);
	int ok = 1;
	s->dir = dup_str(dir, &ok);
	s->index_dir = dup_str(index_dir, &ok);
	if (!ok || pthread_mutex_init(&s->lock, NULL) != 0) {
		sqlite3_free(s->dir);
		sqlite3_free(s->index_dir);
		sqlite3_free(s);
		return NULL;
	}
	atomic_init(&s->refs, 1);
	return s;
}

/* Reads the header values the tables name things by. */
static void source_info(struct usql_source *s)
{
	umt_trace_info info;
	if (umt_trace_get_info(s->t, &info) == 0) {
		s->exec_version = info.exec_version;
		s->unified_ids = info.unified_ids_version;
	}
}

struct usql_source *usql_source_borrow(const umt_trace *t, const char *dir, const char *index_dir,
                                       const umt_names *names)
{
	struct usql_source *s = source_new(dir, index_dir);
	if (s == NULL)
		return NULL;
	s->t = t;
	s->names = names;
	source_info(s);
	return s;
}

int usql_source_open(const char *dir, const struct usql_open_options *o,
                     struct usql_source **out, char **err)
{
	struct usql_source *s = source_new(dir, o->index_dir);
	if (s == NULL)
		return SQLITE_NOMEM;
	umt_trace *t = NULL;
	umt_names *names = NULL;
	int rc = umt_trace_open(dir, o->flags, &t);
	if (rc < 0) {
		t = NULL; /* unspecified after a failure */
		*err = sqlite3_mprintf("umtrace_open: %s", umt_errmsg());
	} else if (o->xed_dir && *o->xed_dir && (rc = umt_names_load_dir(o->xed_dir, &names)) < 0) {
		names = NULL;
		*err = sqlite3_mprintf("umtrace_open: xed=%s: %s", o->xed_dir, umt_errmsg());
	}
	s->t = s->owned_trace = t;
	s->names = s->owned_names = names;
	if (rc < 0) {
		usql_source_unref(s);
		return SQLITE_ERROR;
	}
	source_info(s);
	*out = s;
	return SQLITE_OK;
}

void usql_source_ref(struct usql_source *s)
{
	atomic_fetch_add(&s->refs, 1);
}

static void free_modules(struct usql_module *m, uint64_t n)
{
	for (uint64_t i = 0; m && i < n; i++) {
		sqlite3_free(m[i].path);
		sqlite3_free(m[i].device);
		sqlite3_free(m[i].err);
	}
	sqlite3_free(m);
}

void usql_source_unref(struct usql_source *s)
{
	if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	umt_index_close(s->ix);
	free_modules(s->mods, s->nmods);
	umt_names_free(s->owned_names);
	umt_trace_close(s->owned_trace);
	pthread_mutex_destroy(&s->lock);
	sqlite3_free(s->dir);
	sqlite3_free(s->index_dir);
	sqlite3_free(s);
}

/* Opens the index (called under the lock). */
static int open_index(struct usql_source *s, char **err)
{
	char buf[PATH_MAX];
	const char *dir = s->index_dir;
	if (dir == NULL) {
		if (s->dir == NULL) {
			*err = sqlite3_mprintf("the index: no trace directory to find it in (attach "
			                       "the trace with an index directory)");
			return SQLITE_ERROR;
		}
		if (umt_index_default_dir(s->dir, buf, sizeof buf) < 0) {
			*err = sqlite3_mprintf("the index of %s: %s", s->dir, umt_errmsg());
			return SQLITE_ERROR;
		}
		dir = buf;
	}
	int rc = umt_index_open(s->t, dir, &s->ix);
	if (rc == 0)
		return SQLITE_OK;
	if (rc == UMT_E_MISSING || rc == UMT_E_INCOMPLETE || rc == UMT_E_STALE)
		*err = sqlite3_mprintf("%s; build the index first: umtdump index%s%s %s", umt_errmsg(),
		                       s->index_dir ? " --out " : "", s->index_dir ? s->index_dir : "",
		                       s->dir ? s->dir : "TRACE_DIR");
	else
		*err = sqlite3_mprintf("%s", umt_errmsg());
	s->ix = NULL;
	return SQLITE_ERROR;
}

int usql_source_index(struct usql_source *s, const umt_index **out, char **err)
{
	int rc = SQLITE_OK;
	pthread_mutex_lock(&s->lock);
	if (s->ix == NULL)
		rc = open_index(s, err); /* not remembered: the index may be built meanwhile */
	*out = s->ix;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* One name of module @p id into *out (sqlite3_malloc'd), or the reason into *err. */
static int module_name(const umt_trace *t, uint64_t id, int which, char **out, char **err)
{
	char small[256];
	long n = umt_module_name(t, id, which, small, sizeof small);
	if (n < 0) {
		if (*err == NULL && (*err = sqlite3_mprintf("%s", umt_errmsg())) == NULL)
			return SQLITE_NOMEM;
		return SQLITE_OK;
	}
	if ((*out = sqlite3_malloc64((sqlite3_uint64)n + 1)) == NULL)
		return SQLITE_NOMEM;
	if ((size_t)n < sizeof small)
		memcpy(*out, small, (size_t)n + 1);
	else
		umt_module_name(t, id, which, *out, (size_t)n + 1);
	return SQLITE_OK;
}

/* Converts every module's names (called under the lock). */
static int load_modules(struct usql_source *s)
{
	uint64_t n = umt_module_count(s->t);
	struct usql_module *m = sqlite3_malloc64(n ? n * sizeof *m : 1);
	if (m == NULL)
		return SQLITE_NOMEM;
	memset(m, 0, n * sizeof *m);
	for (uint64_t i = 0; i < n; i++) {
		if (module_name(s->t, i, UMT_MODULE_WIN_NAME, &m[i].path, &m[i].err) != SQLITE_OK ||
		    module_name(s->t, i, UMT_MODULE_DEVICE_NAME, &m[i].device, &m[i].err) != SQLITE_OK) {
			free_modules(m, n);
			return SQLITE_NOMEM;
		}
		if (m[i].path) {
			/* the file name: after the last \ or / */
			char *p = m[i].path, *base = p;
			for (; *p; p++)
				if (*p == '\\' || *p == '/')
					base = p + 1;
			m[i].name = base;
		}
	}
	s->mods = m;
	s->nmods = n;
	return SQLITE_OK;
}

const struct usql_module *usql_source_modules(struct usql_source *s, uint64_t *count)
{
	pthread_mutex_lock(&s->lock);
	if (s->mods == NULL)
		load_modules(s);
	const struct usql_module *m = s->mods;
	*count = s->nmods;
	pthread_mutex_unlock(&s->lock);
	return m;
}
