/*
 * umtdump modules: module records with their names in UTF-8, load and
 * unload records, address ranges, and the 2015 fields (file time and
 * version) when the rows have them.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "umtdump.h"

/* A module name in UTF-8: in buf, or allocated when longer. */
struct name {
	char buf[512];
	char *text;
	size_t len;
};

static int get_name(const umt_trace *t, uint64_t id, int which, struct name *n)
{
	n->text = n->buf;
	long need = umt_module_name(t, id, which, n->buf, sizeof n->buf);
	if (need < 0)
		return (int)need;
	n->len = (size_t)need;
	if ((size_t)need >= sizeof n->buf) {
		if ((n->text = malloc((size_t)need + 1)) == NULL) {
			n->text = n->buf;
			n->len = strlen(n->buf);
			return 0;
		}
		umt_module_name(t, id, which, n->text, (size_t)need + 1);
	}
	return 0;
}

static void free_name(struct name *n)
{
	if (n->text != n->buf)
		free(n->text);
}

/* FILETIME as ISO 8601 UTC; @p frac adds the 100 ns digits. "" when out of range. */
static void filetime_text(uint64_t ft, bool frac, char *buf, size_t size)
{
	int64_t sec;
	uint32_t nsec;
	struct tm tm;
	umt_filetime_to_unix(ft, &sec, &nsec);
	time_t tt = (time_t)sec;
	buf[0] = '\0';
	if ((int64_t)tt != sec || gmtime_r(&tt, &tm) == NULL || tm.tm_year > 9999 - 1900)
		return;
	size_t n = strftime(buf, size, frac ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
	if (frac && n > 0)
		snprintf(buf + n, size - n, ".%07uZ", nsec / 100);
}

struct module {
	uint64_t id;
	const umt_module_rec *rec;
	const umt_module_rec_2015 *rec2015; /* NULL for 48-byte rows */
	struct name win, dev;
};

static void text_row(const struct module *m)
{
	const umt_module_rec *r = m->rec;
	out_u64_pad(m->id, 4);
	out_i64_pad(r->LoadEID, 11);
	out_i64_pad(r->UnloadEID, 11);
	out_printf("  0x%-16llx 0x%-16llx ", (unsigned long long)r->StartAddr,
	           (unsigned long long)r->EndAddr);
	if (m->rec2015) {
		const uint16_t *v = m->rec2015->VersionInfo;
		char ver[32], when[40];
		snprintf(ver, sizeof ver, "%u.%u.%u.%u", v[0], v[1], v[2], v[3]);
		filetime_text(m->rec2015->LastFileWriteTime, false, when, sizeof when);
		out_str_pad(ver, 17);
		out_str_pad(*when ? when : "?", 20);
	} else {
		out_str_pad("-", 17);
		out_str_pad("-", 20);
	}
	out_text(m->win.text, m->win.len);
	out_str("\n      device ");
	out_text(m->dev.text, m->dev.len);
	out_char('\n');
}

static void json_row(const struct module *m)
{
	const umt_module_rec *r = m->rec;
	struct jw j;
	jw_begin(&j);
	jw_u64(&j, "id", m->id);
	jw_i64(&j, "load_eid", r->LoadEID);
	jw_i64(&j, "unload_eid", r->UnloadEID);
	jw_hex(&j, "start_addr", (uint64_t)r->StartAddr);
	jw_hex(&j, "end_addr", (uint64_t)r->EndAddr);
	jw_strn(&j, "win_name", m->win.text, m->win.len);
	jw_strn(&j, "device_name", m->dev.text, m->dev.len);
	if (m->rec2015) {
		char when[48];
		jw_hex(&j, "last_file_write_time", m->rec2015->LastFileWriteTime);
		filetime_text(m->rec2015->LastFileWriteTime, true, when, sizeof when);
		jw_str(&j, "last_file_write_time_utc", *when ? when : NULL);
		jw_open(&j, "version_info", '[');
		for (int i = 0; i < 4; i++)
			jw_u64(&j, NULL, m->rec2015->VersionInfo[i]);
		jw_close(&j, ']');
	}
	jw_end(&j);
}

/* Reads module @p id; its error is reported. */
static int read_module(const umt_trace *t, uint64_t id, struct module *m)
{
	memset(m, 0, sizeof *m);
	m->id = id;
	m->win.text = m->win.buf;
	m->dev.text = m->dev.buf;
	int rc = umt_module_get(t, id, &m->rec);
	if (rc == 0) {
		int r2 = umt_module_get_2015(t, id, &m->rec2015);
		if (r2 < 0)
			m->rec2015 = NULL;
		rc = get_name(t, id, UMT_MODULE_WIN_NAME, &m->win);
	}
	if (rc == 0)
		rc = get_name(t, id, UMT_MODULE_DEVICE_NAME, &m->dev);
	if (rc < 0)
		report_error(rc);
	return rc;
}

int cmd_modules(umt_trace *t, const struct opts *o)
{
	uint64_t n = umt_module_count(t);
	if (!o->json)
		out_str("  ID   LOAD_EID UNLOAD_EID  START              END                VERSION"
		        "          FILE TIME (UTC)     NAME\n");
	int status = EXIT_OK;
	for (uint64_t id = 0; id < n && !out_closed(); id++) {
		struct module m;
		int rc = read_module(t, id, &m);
		if (rc == 0) {
			if (o->json)
				json_row(&m);
			else
				text_row(&m);
		}
		free_name(&m.win);
		free_name(&m.dev);
		if (rc < 0) {
			if (failed_row(o, &status))
				break;
		}
	}
	return status;
}
