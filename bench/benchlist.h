/*
 * The benchmarks' --only lists: whether a comma-separated list names an
 * entry (umtbench, ixbench, sqlbench share it).
 */
#ifndef BENCHLIST_H
#define BENCHLIST_H

#include <string.h>

/** Whether @p list ("a,b,c"; NULL: every entry) names @p name, whole. */
static inline int bench_listed(const char *list, const char *name)
{
	if (list == NULL)
		return 1;
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return 1;
	return 0;
}

#endif
