/* cffi declarations of index.h sections 7-9: registers at a record, a
 * register's history, the origin of a value. */
typedef struct {
	uint64_t at; uint64_t thread; int is_64bit; uint32_t size;
	const uint8_t *data; const uint8_t *known; const uint64_t *sources;
	...;
} umt_state;
int umt_state_init(const umt_index *ix, umt_state *s);
void umt_state_release(umt_state *s);
int umt_state_at(const umt_index *ix, uint64_t at, int64_t thread, umt_state *s);
typedef struct {
	int reg; int largest; uint32_t offset; uint32_t size; const uint8_t *data;
	const uint8_t *known; uint32_t known_bytes; uint64_t source;
	...;
} umt_reg_value;
int umt_state_reg(const umt_state *s, int reg, umt_reg_value *out);

typedef struct {
	int reg; int64_t thread; uint64_t from; uint64_t to; int reverse; uint64_t limit; int changes;
	...;
} umt_reg_history_query;
void umt_reg_history_query_init(umt_reg_history_query *q, int reg);
typedef struct {
	uint64_t id; uint64_t thread; int reg; uint32_t size; uint8_t value[255]; uint8_t known[255];
	int changed;
	...;
} umt_reg_write;
typedef struct umt_reg_history umt_reg_history;
int umt_reg_history_open(const umt_index *ix, const umt_reg_history_query *q,
                         umt_reg_history **out);
int umt_reg_history_next(umt_reg_history *h, umt_reg_write *out);
void umt_reg_history_close(umt_reg_history *h);

typedef struct {
	uint64_t at; int reg; uint64_t address; uint64_t length; unsigned depth; uint64_t max_nodes;
	...;
} umt_origin_query;
void umt_origin_query_init(umt_origin_query *q, uint64_t at, int reg);
typedef struct {
	unsigned depth; int role; int kind; uint64_t id; uint64_t at; uint64_t thread; int reg;
	uint64_t address; uint64_t length; uint32_t size; const uint8_t *value; const uint8_t *known;
	...;
} umt_origin_node;
typedef struct umt_origin umt_origin;
int umt_origin_open(const umt_index *ix, const umt_origin_query *q, umt_origin **out);
int umt_origin_next(umt_origin *o, umt_origin_node *out);
void umt_origin_close(umt_origin *o);
