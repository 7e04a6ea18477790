/*
 * libumtrace SQLite module - constraints pushed down to the tables.
 *
 * xBestIndex: of the usable constraints on a table's pushable columns, one
 * equality, one lower and one upper bound per column are taken; the
 * table's plan function estimates the cost and may drop some; each one
 * taken is omitted (the table enforces it exactly, as SQLite would) and
 * recorded in idxNum, 5 bits per pushable column:
 *   bit 0 =, bit 1 lower bound, bit 2 strict (>), bit 3 upper bound,
 *   bit 4 strict (<),
 * with the values passed in that order. xFilter turns them into an
 * inclusive range per column, comparing as SQLite compares an INTEGER
 * column with the value: text that looks like a number is that number, a
 * real bounds by its floor or ceiling, NULL matches nothing, and any other
 * text or blob is greater than every number.
 */
#include <math.h>
#include <string.h>

#include "usql.h"

enum { B_EQ = 1, B_LO = 2, B_LO_STRICT = 4, B_HI = 8, B_HI_STRICT = 16, B_BITS = 5 };

static int push_index(const struct usql_table *def, int col)
{
	for (unsigned k = 0; k < def->npush; k++)
		if (def->push[k].col == col)
			return (int)k;
	return -1;
}

/* The class (0 EQ, 1 LO, 2 HI) of constraint operator @p op on a column taking @p ops, or -1. */
static int op_class(unsigned char op, unsigned ops)
{
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_EQ:
		return ops & USQL_EQ ? 0 : -1;
	case SQLITE_INDEX_CONSTRAINT_GT:
	case SQLITE_INDEX_CONSTRAINT_GE:
		return ops & USQL_RANGE ? 1 : -1;
	case SQLITE_INDEX_CONSTRAINT_LT:
	case SQLITE_INDEX_CONSTRAINT_LE:
		return ops & USQL_RANGE ? 2 : -1;
	default:
		return -1;
	}
}

/* The value of constraint @p i when SQLite knows it now: for estimates only. */
static void known_value(sqlite3_index_info *info, int i, int cls, struct usql_shape *s, int k)
{
	sqlite3_value *v = NULL;
	if (sqlite3_vtab_rhs_value(info, i, &v) != SQLITE_OK || v == NULL ||
	    sqlite3_value_type(v) != SQLITE_INTEGER)
		return;
	int64_t x = sqlite3_value_int64(v);
	unsigned char op = info->aConstraint[i].op;
	if (op == SQLITE_INDEX_CONSTRAINT_GT && x < INT64_MAX)
		x++;
	else if (op == SQLITE_INDEX_CONSTRAINT_LT && x > INT64_MIN)
		x--;
	s->known[k] |= 1 << cls;
	if (cls == 0)
		s->eq[k] = x;
	else if (cls == 1)
		s->lo[k] = x;
	else
		s->hi[k] = x;
}

/*
 * Whether column @p col has an equality constraint, usable or not. A
 * table-valued function without one was called with too few arguments:
 * its filter says so (a plan without the argument), rather than SQLite's
 * "no query solution".
 */
static int has_constraint(const sqlite3_index_info *info, int col)
{
	for (int i = 0; i < info->nConstraint; i++)
		if (info->aConstraint[i].iColumn == col &&
		    info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ)
			return 1;
	return 0;
}

/* Picks the usable constraints; pick[k][cls] is the constraint taken, or -1. */
static void pick_constraints(const struct usql_table *def, sqlite3_index_info *info,
                             struct usql_shape *s, int pick[][3])
{
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *con = &info->aConstraint[i];
		int k = con->usable ? push_index(def, con->iColumn) : -1;
		if (k < 0)
			continue;
		unsigned ops = def->push[k].ops;
		int cls = op_class(con->op, ops);
		if (cls < 0 || pick[k][cls] >= 0)
			continue;
		/* text compared as the table compares it: only byte for byte */
		if ((ops & USQL_TEXT) &&
		    (cls != 0 || sqlite3_stricmp(sqlite3_vtab_collation(info, i), "BINARY") != 0))
			continue;
		pick[k][cls] = i;
		s->used[k] |= 1u << cls;
		if (!(ops & USQL_TEXT))
			known_value(info, i, cls, s, k);
	}
}

int usql_best_index(struct usql_vtab *vt, sqlite3_index_info *info)
{
	const struct usql_table *def = vt->def;
	struct usql_shape s;
	int pick[USQL_MAX_PUSH][3];
	memset(&s, 0, sizeof s);
	memset(pick, -1, sizeof pick);
	pick_constraints(def, info, &s, pick);
	for (unsigned k = 0; k < def->npush; k++)
		if ((def->push[k].ops & USQL_REQUIRED) && !(s.used[k] & USQL_C_EQ) &&
		    has_constraint(info, def->push[k].col))
			return SQLITE_CONSTRAINT; /* its argument comes later in a join: another order */
	double cost = 1, rows = 1;
	int rc = def->plan(vt, &s, &cost, &rows);
	if (rc != SQLITE_OK)
		return rc;
	int argv_index = 1, idx = 0;
	for (unsigned k = 0; k < def->npush; k++) {
		for (int cls = 0; cls < 3; cls++) {
			int i = pick[k][cls];
			if (i < 0 || !(s.used[k] & (1u << cls)))
				continue;
			info->aConstraintUsage[i].argvIndex = argv_index++;
			info->aConstraintUsage[i].omit = 1;
			unsigned char op = info->aConstraint[i].op;
			int bits = cls == 0 ? B_EQ
			           : cls == 1 ? B_LO | (op == SQLITE_INDEX_CONSTRAINT_GT ? B_LO_STRICT : 0)
			                      : B_HI | (op == SQLITE_INDEX_CONSTRAINT_LT ? B_HI_STRICT : 0);
			idx |= bits << (B_BITS * k);
		}
	}
	info->idxNum = idx;
	if (def->order_col >= 0 && info->nOrderBy == 1 &&
	    info->aOrderBy[0].iColumn == def->order_col && !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	info->estimatedCost = cost;
	info->estimatedRows = rows < 1 ? 1 : (sqlite3_int64)rows;
	if (rows <= 1)
		info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
	return SQLITE_OK;
}

/* The smallest integer >= d (strict: > d), for d inside the int64 range. */
static int64_t above(double d, int strict)
{
	double f = strict ? floor(d) + 1 : ceil(d);
	return (int64_t)f;
}

/* The largest integer <= d (strict: < d). */
static int64_t below(double d, int strict)
{
	double f = strict ? ceil(d) - 1 : floor(d);
	return (int64_t)f;
}

/*
 * Narrows [*lo, *hi] by "col CLS v" (cls 0 =, 1 >/>=, 2 </<=); returns 0
 * when no integer satisfies it.
 */
static int narrow(sqlite3_value *v, int cls, int strict, int64_t *lo, int64_t *hi)
{
	int type = sqlite3_value_numeric_type(v); /* numeric affinity, as SQLite applies it */
	if (type == SQLITE_NULL)
		return 0;
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
		return cls == 2; /* text and blobs sort after every number */
	int64_t a = INT64_MIN, b = INT64_MAX;
	if (type == SQLITE_INTEGER) {
		int64_t x = sqlite3_value_int64(v);
		if (strict && ((cls == 1 && x == INT64_MAX) || (cls == 2 && x == INT64_MIN)))
			return 0;
		if (cls != 2)
			a = strict ? x + 1 : x;
		if (cls != 1)
			b = strict ? x - 1 : x;
	} else {
		double d = sqlite3_value_double(v);
		const double top = 9223372036854775808.0; /* 2^63 */
		if (cls == 0 && (d != floor(d) || d < -top || d >= top))
			return 0;
		if (cls != 2) {
			if (d >= top)
				return 0;
			if (d >= -top)
				a = above(d, strict && cls == 1);
		}
		if (cls != 1) {
			if (d < -top)
				return 0;
			if (d < top)
				b = below(d, strict && cls == 2);
		}
	}
	if (a > *lo)
		*lo = a;
	if (b < *hi)
		*hi = b;
	return *lo <= *hi;
}

void usql_decode_args(const struct usql_table *def, int idx_num, int argc, sqlite3_value **argv,
                      struct usql_args *a)
{
	memset(a, 0, sizeof *a);
	int n = 0;
	for (unsigned k = 0; k < def->npush; k++) {
		unsigned bits = ((unsigned)idx_num >> (B_BITS * k)) & ((1u << B_BITS) - 1);
		a->lo[k] = INT64_MIN;
		a->hi[k] = INT64_MAX;
		int ok = 1;
		if ((bits & B_EQ) && n < argc) {
			a->used[k] |= USQL_C_EQ;
			if (def->push[k].ops & USQL_TEXT)
				a->text[k] = argv[n];
			else
				ok &= narrow(argv[n], 0, 0, &a->lo[k], &a->hi[k]);
			n++;
		}
		if ((bits & B_LO) && n < argc) {
			a->used[k] |= USQL_C_LO;
			ok &= narrow(argv[n++], 1, (bits & B_LO_STRICT) != 0, &a->lo[k], &a->hi[k]);
		}
		if ((bits & B_HI) && n < argc) {
			a->used[k] |= USQL_C_HI;
			ok &= narrow(argv[n++], 2, (bits & B_HI_STRICT) != 0, &a->lo[k], &a->hi[k]);
		}
		if (!ok)
			a->empty = 1;
	}
}

int usql_id_range(const struct usql_args *a, unsigned k, uint64_t count, uint64_t *lo,
                  uint64_t *hi)
{
	if (count == 0 || a->hi[k] < 0 || a->lo[k] > a->hi[k])
		return 0;
	*lo = a->lo[k] < 0 ? 0 : (uint64_t)a->lo[k];
	*hi = (uint64_t)a->hi[k] >= count ? count - 1 : (uint64_t)a->hi[k];
	return *lo <= *hi;
}

double usql_id_rows(const struct usql_shape *s, unsigned k, double count)
{
	unsigned used = s->used[k], known = (unsigned)s->known[k];
	if (used & USQL_C_EQ)
		return 1;
	double lo = 0, hi = count - 1;
	if ((used & USQL_C_LO) && (known & USQL_C_LO))
		lo = (double)s->lo[k];
	if ((used & USQL_C_HI) && (known & USQL_C_HI))
		hi = (double)s->hi[k];
	double n = hi - lo + 1;
	if (n < 1)
		n = 1;
	if (n > count)
		n = count;
	/* an unknown bound (a join, a parameter): assume it keeps a quarter */
	if ((used & USQL_C_LO) && !(known & USQL_C_LO))
		n /= 4;
	if ((used & USQL_C_HI) && !(known & USQL_C_HI))
		n /= 4;
	return n < 1 ? 1 : n;
}

int usql_at_thread_args(struct usql_cursor *c, const struct usql_args *a, int64_t *thread)
{
	const char *fn = c->vt->def->name;
	int64_t at = a->lo[0];
	if (!a->used[0])
		return usql_failf(c, "%s(at [, thread]): the record is needed", fn);
	if (a->empty)
		return usql_failf(c, "%s(at [, thread]): the arguments must be integers", fn);
	if (at < 0 || (uint64_t)at >= umt_exec_count(c->t))
		return usql_failf(c, "%s: at %lld: no such record (%llu records)", fn, (long long)at,
		                  (unsigned long long)umt_exec_count(c->t));
	*thread = a->used[1] ? a->lo[1] : -1;
	if (a->used[1] && (*thread < 0 || (uint64_t)*thread >= umt_thread_count(c->t)))
		return usql_failf(c, "%s: thread %lld: no such thread (%llu threads)", fn,
		                  (long long)*thread, (unsigned long long)umt_thread_count(c->t));
	return SQLITE_OK;
}
