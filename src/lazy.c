/*
 * libumtrace - the parts of a trace handle built on first use: one protocol
 * for all of them.
 *
 * Open is O(1), so whatever costs more than a header check waits for its
 * first user: the exec.prev_next.column mapping, the bitmaps of checked
 * records and instruction rows, the module index, parsed trace.xml. A trace
 * handle is shared between threads, so each part is built once, under the
 * registry's one lock, published with a release store and read with an
 * acquire load (double-checked locking): after the first build, a getter is
 * one load, without a lock. Close releases every part through its kind.
 *
 * This file knows no part: each module passes its own struct umt_lazy_kind
 * (build and release functions), so no module depends on the others and
 * the handle's owner (trace.c) depends on none of them.
 */
#include <stdlib.h>

#include "internal.h"

char umt__lazy_nothing;

void umt__lazy_init(struct umt_lazy *l)
{
	pthread_mutex_init(&l->lock, NULL);
	for (int i = 0; i < UMT_LAZY_PART_COUNT; i++) {
		atomic_init(&l->slot[i].value, NULL);
		l->slot[i].kind = NULL;
		l->slot[i].status = 0;
		l->slot[i].message = NULL;
		l->slot[i].loc = (struct umt_loc){-1, UMT_LOC_NONE, 0, 0};
	}
}

void umt__lazy_release(struct umt_lazy *l)
{
	for (int i = 0; i < UMT_LAZY_PART_COUNT; i++) {
		struct umt_lazy_slot *s = &l->slot[i];
		/* close owns the handle: no other thread may use it now */
		void *v = atomic_load_explicit(&s->value, memory_order_relaxed);
		if (v != NULL && v != &umt__lazy_nothing && s->kind->release != NULL)
			s->kind->release(v);
		atomic_store_explicit(&s->value, NULL, memory_order_relaxed);
		free(s->message);
		s->message = NULL;
		s->status = 0;
	}
	pthread_mutex_destroy(&l->lock);
}

/* Whether a failure of build() stays: content does not change, resources may come back. */
static bool remembered(int status)
{
	return status != UMT_E_NOMEM && status != UMT_E_IO;
}

int umt__lazy_build(struct umt_lazy *l, const umt_trace *t, const struct umt_lazy_kind *k,
                    void **out)
{
	struct umt_lazy_slot *s = &l->slot[k->part];
	int rc = 0;
	pthread_mutex_lock(&l->lock);
	void *v = atomic_load_explicit(&s->value, memory_order_relaxed);
	if (v == NULL && s->status != 0) {
		rc = s->status; /* the same failure, with the same message and location */
		umt__fail_replay(&s->loc, s->message ? s->message : umt_strerror(rc));
	} else if (v == NULL) {
		rc = k->build(t, &v);
		if (rc == 0) {
			if (v == NULL)
				v = &umt__lazy_nothing;
			s->kind = k;
			atomic_store_explicit(&s->value, v, memory_order_release);
		} else if (remembered(rc)) {
			s->status = rc;
			s->message = strdup(umt_errmsg()); /* NULL: the generic text instead */
			umt__last_loc(&s->loc);
		}
	}
	pthread_mutex_unlock(&l->lock);
	*out = rc == 0 && v != &umt__lazy_nothing ? v : NULL;
	return rc;
}
