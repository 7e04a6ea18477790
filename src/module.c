/*
 * libumtrace - module.itable: module rows, UTF-16 names, lookup by address and time.
 *
 * Rows are stepped by the header's RowSize: 48 bytes, or 64 with the 2015
 * fields (ERRATA 4). Names are uStr in the extra area, pointed to by
 * absolute FPs (spec 9).
 *
 * Lookup by (address, record ID). Modules load and unload over time and a
 * later module may reuse the addresses of an unloaded one, so a module is
 * a rectangle [StartAddr, EndAddr] x [LoadEID, UnloadEID) and a lookup is
 * point location among rectangles. The index sweeps the address axis: at
 * every address where some module starts or ends, it keeps a version of a
 * persistent search tree over the modules covering that address.
 *
 * The tree has a fixed shape: the implicit balanced tree over all modules
 * sorted by LoadEID (node of [lo, hi) is module mid = (lo + hi) / 2). A
 * version differs from the previous one by switching modules on and off;
 * each switch copies the path from the root to that module (path copying),
 * so the index takes O(n log n) nodes. Each node keeps the largest UnloadEID
 * of the switched-on modules below it, which is the interval-tree search
 * of "a module with LoadEID <= eid < UnloadEID": one root-to-leaf walk.
 * A lookup is one binary search over the addresses and one walk: O(log n).
 * It finds a containing module whenever one exists, even in corrupt tables
 * where modules overlap (umt_verify() reports those).
 */
#include <stdlib.h>

#include "internal.h"

/* ---- rows ------------------------------------------------------------------ */

uint64_t umt_module_count(const umt_trace *t)
{
	return t ? t->module.count : 0;
}

static uint64_t row_offset(const umt_trace *t, uint64_t id)
{
	return t->module.table_fp + id * t->module.row_size;
}

static int __attribute__((noinline, cold)) module_out_of_range(const umt_trace *t, uint64_t id)
{
	static const struct umt_range_msg m = {UMT_FILE_MODULE, UMT_LOC_ROW, UMT_FILE_MODULE,
	                                       "module", "rows"};
	return umt__out_of_range(t, &m, id, t->module.count, t->module.declared);
}

int umt_module_get(const umt_trace *t, uint64_t id, const umt_module_rec **row)
{
	if (t == NULL || row == NULL)
		return umt__failf(UMT_E_INVAL, "umt_module_get: invalid argument");
	if (id >= t->module.count)
		return module_out_of_range(t, id);
	*row = (const umt_module_rec *)(t->module.rows + id * t->module.row_size);
	return 0;
}

int umt_module_get_2015(const umt_trace *t, uint64_t id, const umt_module_rec_2015 **row)
{
	if (t == NULL || row == NULL)
		return umt__failf(UMT_E_INVAL, "umt_module_get_2015: invalid argument");
	if (id >= t->module.count)
		return module_out_of_range(t, id);
	if (t->module.row_size < sizeof(umt_module_rec_2015))
		return umt__fail(UMT_E_NO_VALUE, UMT_FILE_MODULE, UMT_LOC_ROW, id,
		                 row_offset(t, id),
		                 "RowSize %llu: no LastFileWriteTime and VersionInfo (64-byte rows only)",
		                 (unsigned long long)t->module.row_size);
	*row = (const umt_module_rec_2015 *)(t->module.rows + id * t->module.row_size);
	return 0;
}

void umt_filetime_to_unix(uint64_t filetime, int64_t *sec, uint32_t *nsec)
{
	/* 1601-01-01 to 1970-01-01: 11644473600 s. Unsigned division floors. */
	if (sec)
		*sec = (int64_t)(filetime / 10000000u) - INT64_C(11644473600);
	if (nsec)
		*nsec = (uint32_t)(filetime % 10000000u) * 100u;
}

/* ---- names ----------------------------------------------------------------- */

static int __attribute__((noinline, cold))
bad_ustr(const umt_trace *t, uint64_t id, int which, int64_t fp)
{
	const char *field = which == UMT_MODULE_WIN_NAME ? "WinNameFP" : "DeviceNameFP";
	uint64_t at = row_offset(t, id) + (which == UMT_MODULE_WIN_NAME ? 32 : 40);
	uint64_t x0 = t->module.extra_fp, xs = t->module.extra_size;
	if (fp < 0 || (uint64_t)fp < x0 || !umt__span_ok((uint64_t)fp - x0, 2, xs))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_MODULE, UMT_LOC_ROW, id, at,
		                 "%s 0x%llx: its uStr is not inside the extra area [0x%llx, 0x%llx)",
		                 field, (unsigned long long)fp, (unsigned long long)x0,
		                 (unsigned long long)(x0 + xs));
	int16_t len = (int16_t)umt__ld16(t->module.extra + ((uint64_t)fp - x0));
	if (len < 0)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_MODULE, UMT_LOC_ROW, id, (uint64_t)fp,
		                 "uStr of %s has a negative Length %d", field, len);
	return umt__fail(UMT_E_BOUNDS, UMT_FILE_MODULE, UMT_LOC_ROW, id, (uint64_t)fp,
	                 "uStr of %s: Length %d and its terminating unit run past the extra area [0x%llx, 0x%llx)",
	                 field, len, (unsigned long long)x0, (unsigned long long)(x0 + xs));
}

int umt_module_name_utf16(const umt_trace *t, uint64_t id, int which, const uint8_t **units,
                          size_t *count)
{
	if (t == NULL || units == NULL || count == NULL ||
	    (which != UMT_MODULE_WIN_NAME && which != UMT_MODULE_DEVICE_NAME))
		return umt__failf(UMT_E_INVAL, "umt_module_name_utf16: invalid argument");
	if (id >= t->module.count)
		return module_out_of_range(t, id);
	const umt_module_rec *r =
		(const umt_module_rec *)(t->module.rows + id * t->module.row_size);
	int64_t fp = which == UMT_MODULE_WIN_NAME ? r->WinNameFP : r->DeviceNameFP;
	uint64_t x0 = t->module.extra_fp, xs = t->module.extra_size;
	/* Absolute FP (spec 9): the Length, the units and the NUL unit all inside the area. */
	if (fp < 0 || (uint64_t)fp < x0 || !umt__span_ok((uint64_t)fp - x0, 2, xs))
		return bad_ustr(t, id, which, fp);
	uint64_t rel = (uint64_t)fp - x0;
	int16_t len = (int16_t)umt__ld16(t->module.extra + rel);
	if (len < 0 || !umt__span_ok(rel + 2, (uint64_t)len * 2 + 2, xs))
		return bad_ustr(t, id, which, fp);
	/* The value of the terminating unit is not checked: Length is authoritative. */
	*units = t->module.extra + rel + 2;
	*count = (size_t)len;
	return 0;
}

long umt_module_name(const umt_trace *t, uint64_t id, int which, char *buf, size_t size)
{
	const uint8_t *units;
	size_t n;
	int rc = umt_module_name_utf16(t, id, which, &units, &n);
	if (rc < 0) {
		if (buf && size > 0)
			buf[0] = '\0';
		return rc;
	}
	/* At most 32767 units of at most 3 bytes each: fits a long. */
	return (long)umt_utf16_to_utf8(units, n, buf, size);
}

/* ---- lookup by address and time -------------------------------------------- */

/** A node of the persistent tree; node 0 is the empty tree. */
struct pnode {
	uint64_t max_unload; /* largest UnloadEID switched on in this subtree, 0 if none */
	uint32_t left, right;
};

struct umt_module_index {
	uint64_t n;           /* modules in the tree (those that can contain anything) */
	uint64_t *load;       /* by tree position: sorted by (LoadEID, ID) */
	uint64_t *unload;     /* UnloadEID, UINT64_MAX for -1 */
	uint64_t *id;         /* module ID */
	uint64_t nbounds;
	uint64_t *bound;      /* addresses where the set of covering modules changes, sorted */
	uint32_t *root;       /* the tree of each bound, valid up to the next bound */
	struct pnode *node;
	uint8_t *on;          /* node's own module switched on */
};

struct mod_key {
	uint64_t load, unload, id, start, end;
};

struct event {
	uint64_t addr;
	uint64_t pos; /* tree position */
	int on;       /* 1: starts covering at addr; 0: stops */
};

static int cmp_mod(const void *a, const void *b)
{
	const struct mod_key *x = a, *y = b;
	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void index_free(struct umt_module_index *ix)
{
	if (ix == NULL)
		return;
	free(ix->load);
	free(ix->unload);
	free(ix->id);
	free(ix->bound);
	free(ix->root);
	free(ix->node);
	free(ix->on);
	free(ix);
}

struct builder {
	struct umt_module_index *ix;
	uint32_t used;  /* nodes in use */
	uint32_t fresh; /* nodes from here on belong to the version being built: edit in place */
};

/* Switches position @p pos on or off below node @p k (range [lo, hi)); returns the new node. */
static uint32_t toggle(struct builder *b, uint32_t k, uint64_t lo, uint64_t hi, uint64_t pos,
                       int on)
{
	struct umt_module_index *ix = b->ix;
	uint64_t mid = lo + (hi - lo) / 2;
	if (k < b->fresh) { /* shared with older versions (or the empty tree): copy */
		uint32_t c = b->used++;
		ix->node[c] = ix->node[k];
		ix->on[c] = ix->on[k];
		k = c;
	}
	if (pos < mid) {
		uint32_t l = toggle(b, ix->node[k].left, lo, mid, pos, on);
		ix->node[k].left = l;
	} else if (pos > mid) {
		uint32_t r = toggle(b, ix->node[k].right, mid + 1, hi, pos, on);
		ix->node[k].right = r;
	} else {
		ix->on[k] = (uint8_t)on;
	}
	uint64_t m = ix->on[k] ? ix->unload[mid] : 0;
	uint64_t ml = ix->node[ix->node[k].left].max_unload;
	uint64_t mr = ix->node[ix->node[k].right].max_unload;
	m = m > ml ? m : ml;
	ix->node[k].max_unload = m > mr ? m : mr;
	return k;
}

/* Reads the modules that can contain something, sorted by (LoadEID, ID). */
static struct mod_key *collect(const umt_trace *t, uint64_t *n_out)
{
	struct mod_key *m = malloc((t->module.count ? t->module.count : 1) * sizeof *m);
	if (m == NULL)
		return NULL;
	uint64_t n = 0;
	for (uint64_t i = 0; i < t->module.count; i++) {
		const umt_module_rec *r =
			(const umt_module_rec *)(t->module.rows + i * t->module.row_size);
		struct mod_key k = {(uint64_t)r->LoadEID,
		                    r->UnloadEID == -1 ? UINT64_MAX : (uint64_t)r->UnloadEID, i,
		                    (uint64_t)r->StartAddr, (uint64_t)r->EndAddr};
		if (k.start <= k.end && k.load < k.unload)
			m[n++] = k;
	}
	qsort(m, n, sizeof *m, cmp_mod);
	*n_out = n;
	return m;
}

/*
 * Builds the versions from the start and end events of the modules. Each
 * event copies at most one root-to-leaf path of the implicit tree (levels
 * nodes), so a pool of 1 + events * levels nodes always suffices.
 */
static void sweep(struct umt_module_index *ix, const struct mod_key *m, struct event *ev)
{
	uint64_t nev = 0;
	for (uint64_t p = 0; p < ix->n; p++) {
		ev[nev++] = (struct event){m[p].start, p, 1};
		if (m[p].end != UINT64_MAX) /* a module ending at the top never stops */
			ev[nev++] = (struct event){m[p].end + 1, p, 0};
	}
	qsort(ev, nev, sizeof *ev, cmp_event);
	struct builder b = {ix, 1, 1};
	uint32_t root = 0;
	for (uint64_t e = 0; e < nev;) {
		uint64_t addr = ev[e].addr;
		b.fresh = b.used; /* nodes made for this address can be edited in place */
		for (; e < nev && ev[e].addr == addr; e++)
			root = toggle(&b, root, 0, ix->n, ev[e].pos, ev[e].on);
		ix->bound[ix->nbounds] = addr;
		ix->root[ix->nbounds++] = root;
	}
}

/* Allocates the arrays of an index of @p n modules; false when memory or indexes run out. */
static bool index_alloc(struct umt_module_index *ix, uint64_t n)
{
	if (n >= UINT32_MAX / 2) /* node indexes are 32-bit */
		return false;
	uint64_t levels = 0; /* levels of the implicit tree: 2^levels - 1 >= n */
	while (((UINT64_C(1) << levels) - 1) < n)
		levels++;
	uint64_t nev = 2 * n + 1, cap = 1 + 2 * n * levels;
	if (cap >= UINT32_MAX)
		return false;
	ix->n = n;
	/* zeroed: every entry a lookup can reach is then defined, whatever the input */
	ix->load = calloc(n + 1, sizeof *ix->load);
	ix->unload = calloc(n + 1, sizeof *ix->unload);
	ix->id = calloc(n + 1, sizeof *ix->id);
	ix->bound = malloc(nev * sizeof *ix->bound);
	ix->root = malloc(nev * sizeof *ix->root);
	ix->node = calloc(cap, sizeof *ix->node);
	ix->on = calloc(cap, 1);
	return ix->load && ix->unload && ix->id && ix->bound && ix->root && ix->node && ix->on;
}

static int index_build(const umt_trace *t, void **out)
{
	int rc = umt__lost(t, UMT_FILE_MODULE, UMT_LOC_NONE, 0, 0); /* no table, no index */
	if (rc < 0)
		return rc;
	struct umt_module_index *ix = calloc(1, sizeof *ix);
	uint64_t n = 0;
	struct mod_key *m = ix ? collect(t, &n) : NULL;
	struct event *ev = NULL;
	bool ok = m && index_alloc(ix, n) && (ev = malloc((2 * n + 1) * sizeof *ev)) != NULL;
	if (ok) {
		for (uint64_t p = 0; p < n; p++) {
			ix->load[p] = m[p].load;
			ix->unload[p] = m[p].unload;
			ix->id[p] = m[p].id;
		}
		sweep(ix, m, ev);
	}
	free(ev);
	free(m);
	if (!ok) {
		index_free(ix);
		return umt__failf(UMT_E_NOMEM,
		                  "module.itable: out of memory for an index of %llu modules",
		                  (unsigned long long)n);
	}
	*out = ix;
	return 0;
}

static void index_release(void *ix)
{
	index_free(ix);
}

/* The index, built on first use (see lazy.c). */
static const struct umt_lazy_kind index_kind = {UMT_LAZY_MODULE_INDEX, index_build,
                                                 index_release};

static int __attribute__((noinline, cold)) no_module(uint64_t address, uint64_t eid)
{
	return umt__fail(UMT_E_NOT_FOUND, UMT_FILE_MODULE, UMT_LOC_NONE, 0, 0,
	                 "no module contains address 0x%llx at record %llu",
	                 (unsigned long long)address, (unsigned long long)eid);
}

int umt_module_find(const umt_trace *t, uint64_t address, uint64_t eid, uint64_t *module_id)
{
	if (t == NULL || module_id == NULL)
		return umt__failf(UMT_E_INVAL, "umt_module_find: invalid argument");
	int rc = umt__module_lookup(t, address, eid, module_id);
	return rc == 1 ? no_module(address, eid) : rc;
}

int umt__module_lookup(const umt_trace *t, uint64_t address, uint64_t eid, uint64_t *module_id)
{
	void *part;
	int rc = umt__lazy_get(t, &index_kind, &part);
	if (rc < 0)
		return rc;
	const struct umt_module_index *ix = part;
	if (ix == NULL) /* index_build() never builds "nothing" */
		return 1;
	/* The last bound <= address gives the modules covering it. */
	uint64_t lo = 0, hi = ix->nbounds;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ix->bound[mid] <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t k = lo ? ix->root[lo - 1] : 0;
	lo = 0;
	hi = ix->n;
	/* Only subtrees holding a module unloaded after eid can contain a match. */
	while (k != 0 && ix->node[k].max_unload > eid) {
		uint64_t mid = lo + (hi - lo) / 2;
		uint32_t l = ix->node[k].left;
		/*
		 * A left module unloaded after eid either matches, or was loaded
		 * after eid, and then so were this one and all on the right.
		 */
		if (l != 0 && ix->node[l].max_unload > eid) {
			k = l;
			hi = mid;
			continue;
		}
		if (ix->load[mid] > eid)
			break; /* this one and all on the right load later */
		if (ix->on[k] && ix->unload[mid] > eid) {
			*module_id = ix->id[mid];
			return 0;
		}
		k = ix->node[k].right;
		lo = mid + 1;
	}
	return 1;
}

/* ---- the module of an instruction ------------------------------------------ */

int umt_ins_module(const umt_trace *t, uint64_t ins_id, uint64_t *module_id)
{
	if (t == NULL || module_id == NULL)
		return umt__failf(UMT_E_INVAL, "umt_ins_module: invalid argument");
	if (ins_id >= t->ins.count)
		return umt__fail(UMT_E_RANGE, UMT_FILE_INS, UMT_LOC_NONE, 0, 0,
		                 "instruction %llu is out of range (%llu rows)",
		                 (unsigned long long)ins_id, (unsigned long long)t->ins.count);
	const umt_ins_rec *r = (const umt_ins_rec *)(t->ins.rows + ins_id * t->ins.row_size);
	int32_t mod = r->ModuleID;
	int rc;
	uint64_t at = t->ins.table_fp + ins_id * t->ins.row_size + offsetof(umt_ins_rec, ModuleID);
	if (mod == -1)
		return umt__fail(UMT_E_NOT_FOUND, UMT_FILE_INS, UMT_LOC_ROW, ins_id, at,
		                 "floating code (ModuleID -1) belongs to no module");
	if (mod >= 0 && (uint64_t)mod >= t->module.count &&
	    (rc = umt__lost(t, UMT_FILE_MODULE, UMT_LOC_ROW, (uint64_t)mod, t->module.declared)) < 0)
		return rc;
	if (mod < 0 || (uint64_t)mod >= t->module.count)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_INS, UMT_LOC_ROW, ins_id, at,
		                 "ModuleID %d is outside the module table (%llu rows)", mod,
		                 (unsigned long long)t->module.count);
	*module_id = (uint64_t)mod;
	return 0;
}
