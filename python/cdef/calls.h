/* cffi declarations of index.h sections 11-13: calls, the stack at a
 * record, arguments and return values. */
typedef struct {
	uint64_t id; int32_t thread_id; uint32_t depth; uint64_t caller; uint64_t target;
	uint64_t return_address; uint64_t return_id; uint64_t end_id; uint64_t parent;
	int64_t module; uint64_t module_offset; uint8_t end; uint8_t target_source; uint8_t length;
	...;
} umt_call;
typedef struct {
	int64_t thread; uint64_t target_first; uint64_t target_last; int64_t module;
	uint64_t offset_first; uint64_t offset_last; uint64_t from; uint64_t to; uint64_t limit;
	...;
} umt_calls_query;
void umt_calls_query_init(umt_calls_query *q);
typedef struct umt_calls umt_calls;
int umt_calls_open(const umt_index *ix, const umt_calls_query *q, umt_calls **out);
int umt_calls_next(umt_calls *c, umt_call *out);
void umt_calls_close(umt_calls *c);
typedef struct {
	umt_call call; int64_t module; uint64_t module_offset;
	...;
} umt_frame;
int umt_stack_at(const umt_index *ix, uint64_t at, int64_t thread, umt_frame *frames,
                 size_t cap, size_t *depth);
int umt_call_args(const umt_index *ix, const umt_call *c, umt_state *s, unsigned n,
                  uint64_t *values, uint8_t *known);
int umt_call_return_value(const umt_index *ix, const umt_call *c, umt_state *s,
                          uint64_t *value);
