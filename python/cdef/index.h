/* cffi declarations of index.h: building, opening, checking an index, and
 * the memory query family (history, memory at a record). A later query
 * family (registers, calls, coverage) adds its declarations in a file of
 * its own here. */
typedef struct umt_index umt_index;
typedef struct {
	unsigned threads; uint64_t memory;
	void (*on_progress)(int phase, uint64_t done, uint64_t total, void *ctx);
	void *ctx;
	...;
} umt_index_build_options;
void umt_index_build_options_init(umt_index_build_options *o);
typedef struct {
	uint64_t records; uint64_t accesses; uint64_t postings; uint64_t pages; uint64_t runs;
	uint64_t temp_bytes; uint64_t index_bytes; unsigned threads;
	...;
} umt_index_build_stats;
int umt_index_build(const umt_trace *t, const char *dir, const umt_index_build_options *o,
                    umt_index_build_stats *stats);
int umt_index_build_part(const umt_trace *t, const char *dir, unsigned part, unsigned parts,
                         const umt_index_build_options *o, umt_index_build_stats *stats);
int umt_index_build_merge(const umt_trace *t, const char *dir, unsigned parts,
                          const umt_index_build_options *o, umt_index_build_stats *stats);
int umt_index_open(const umt_trace *t, const char *dir, umt_index **out);
void umt_index_close(umt_index *ix);
typedef struct {
	uint32_t version; uint64_t pages; uint64_t postings; uint64_t accesses; uint64_t bytes; ...;
} umt_index_info;
int umt_index_get_info(const umt_index *ix, umt_index_info *out);
int umt_index_default_dir(const char *trace_dir, char *buf, size_t cap);
int umt_index_verify(const umt_index *ix);

/* memory */
typedef struct {
	uint64_t address; uint64_t length; uint64_t from; uint64_t to; unsigned kinds; int64_t thread;
	int reverse; uint64_t limit;
	...;
} umt_history_query;
void umt_history_query_init(umt_history_query *q, uint64_t address, uint64_t length);
typedef struct umt_history umt_history;
int umt_history_open(const umt_index *ix, const umt_history_query *q, umt_history **out);
void umt_history_close(umt_history *h);
int umt_mem_at(const umt_index *ix, uint64_t at, uint64_t address, uint64_t length,
               uint8_t *data, uint8_t *known, uint64_t *sources);
enum umt_index_phase { UMT_INDEX_PHASE_SCAN, UMT_INDEX_PHASE_MERGE, UMT_INDEX_PHASE_WRITE, ... };
#define UMT_NO_RECORD ...
