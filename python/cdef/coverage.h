/* cffi declarations of index.h section 10: coverage per module. */
typedef struct {
	int64_t module_id; uint64_t base; uint64_t addresses; uint64_t executions;
	...;
} umt_coverage_module;
typedef struct {
	uint64_t address; uint64_t executions; uint32_t size;
	...;
} umt_coverage_address;
uint64_t umt_coverage_count(const umt_index *ix);
int umt_coverage_get(const umt_index *ix, uint64_t entry, umt_coverage_module *out);
int umt_coverage_address_get(const umt_index *ix, uint64_t entry, uint64_t k,
                             umt_coverage_address *out);
int umt_coverage_find(const umt_index *ix, uint64_t entry, uint64_t address,
                      umt_coverage_address *out);
