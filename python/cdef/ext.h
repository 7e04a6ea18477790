/* cffi declarations of the extension's own helpers (ext/umtpy.h) and of the
 * callbacks from C into Python. */
typedef struct {
	uint64_t count; const uint64_t *address; const int16_t *mnemonic; const int16_t *category;
	const int16_t *form; const int32_t *module;
} umtpy_ins_cache;
void umtpy_ins_cache_fill(const umt_trace *t, uint64_t count, uint64_t *address,
                          int16_t *mnemonic, int16_t *category, int16_t *form, int32_t *module,
                          int32_t *status);
int64_t umtpy_row_counts(const umt_trace *t, uint64_t begin, uint64_t end, int64_t *counts,
                         uint64_t rows, uint64_t *without, uint64_t *failed);
typedef struct {
	uint64_t *id; int32_t *thread; uint8_t *type; uint8_t *flags; uint64_t *offset; uint64_t *size;
	int64_t *ins_id; uint64_t *address; int16_t *mnemonic; int16_t *category; int16_t *form;
	int32_t *module; int64_t *syscall_id; int32_t *exit_code; uint8_t *ok;
} umtpy_cols;
int64_t umtpy_columns(const umt_trace *t, uint64_t begin, uint64_t end,
                      const umtpy_ins_cache *cache, const umtpy_cols *out, int skip_bad,
                      uint64_t *failed);
int64_t umtpy_chain_fill(umt_thread_iter *it, const umtpy_ins_cache *cache,
                         const umtpy_cols *out, uint64_t cap, int *status);
typedef struct {
	uint64_t id; uint64_t address; uint64_t size; uint64_t data_offset; int32_t thread;
	uint32_t locator; uint16_t reg_name; uint8_t kind; uint8_t phase; uint8_t trust;
	uint8_t addr_width; uint8_t pad[2];
} umtpy_access_row;
typedef struct { ...; } umtpy_access_scan;
int umtpy_access_scan_init(umtpy_access_scan *s, const umt_trace *t, uint64_t begin,
                           uint64_t end, unsigned kinds, int skip_bad);
int64_t umtpy_access_scan_next(umtpy_access_scan *s, umtpy_access_row *rows, uint64_t cap,
                               uint64_t *failed);
int64_t umtpy_history_fill(umt_history *h, const uint8_t *records, umtpy_access_row *rows,
                           uint64_t cap);
int64_t umtpy_history_first(const umt_index *ix, uint64_t address, uint64_t length,
                            uint64_t from, uint64_t to, unsigned kinds, int64_t thread,
                            int reverse, uint64_t limit, const uint8_t *records,
                            umtpy_access_row *rows, uint64_t cap, umt_history **more);
const uint8_t *umtpy_records_base(const umt_trace *t);
uint64_t umtpy_ref_block_scan(const umt_trace *t, uint64_t begin, uint64_t end);
int64_t umtpy_ref_history(const umt_index *ix, const uint64_t *addresses, const uint64_t *to,
                          uint64_t n, uint64_t length, unsigned kinds, int reverse, uint64_t limit);
int umtpy_ref_mem(const umt_index *ix, const uint64_t *at, const uint64_t *addresses,
                  uint64_t n, uint64_t length, uint8_t *data, uint8_t *known, uint64_t *sources);
int umtpy_test_rendezvous(int *arrived, int parties, int timeout_ms);

/* callbacks into Python (cffi "extern Python": they take the GIL) */
extern "Python" void umtpy_on_index_progress(int phase, uint64_t done, uint64_t total, void *ctx);
extern "Python" void umtpy_on_verify_progress(uint64_t done, uint64_t total, void *ctx);
extern "Python" int umtpy_on_verify_problem(const umt_problem *p, void *ctx);

/* instruction semantics of rows [begin, end) into columns (ext/semantics.c) */
int64_t umtpy_sem_rows(const umt_trace *t, uint64_t begin, uint64_t end, uint16_t *mnemonic,
                       uint8_t *category, uint8_t *zydis_category, uint8_t *flags,
                       uint8_t *length, uint64_t *target, uint64_t *failed);
int64_t umtpy_sem_pick(const umt_trace *t, const int64_t *rows, uint64_t n, uint16_t *mnemonic,
                       uint8_t *zydis_category, uint8_t *category, int32_t *status);
