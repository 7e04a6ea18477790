/* cffi declarations of umtrace.h and format.h (the reader). Not compiled:
 * cffi parses them and checks every declaration against the real headers
 * when it compiles the extension (API mode); "...;" lets the compiler give
 * the layout, so offsets and sizes come from format.h itself. */

/* format.h: the overlays the numpy dtypes are built from */
typedef struct {
	int32_t HeaderVer; int32_t RecordVer; int64_t RowCount; int64_t RowSize; int64_t TableFP;
	...;
} umt_table_header;
typedef struct {
	int32_t HeaderVer; int32_t RecordVer; int64_t RowCount; int64_t RowSize; int64_t TableFP;
	int64_t ExtraFP; int64_t ExtraSize;
	...;
} umt_extra_table_header;
typedef struct { int32_t Version; int64_t RecordCount; ...; } umt_exec_vtable_header;
typedef struct {
	int32_t Version; int32_t UnifiedIDsVer; int64_t RecordCount; ...;
} umt_syscall_vtable_header;
typedef struct { int32_t ThreadID; uint8_t Type; uint8_t Flags; ...; } umt_exec_rec_hdr;
typedef struct { int64_t Prev; int64_t Next; ...; } umt_prev_next;
typedef struct { int64_t Offset; int64_t Size; ...; } umt_offset_size;
typedef struct {
	int64_t ID; uint8_t Type; uint8_t CSis64Bits; uint8_t CodeSize; int32_t ModuleID;
	int64_t Address; uint8_t CodeBytes[15]; int64_t DisasmFP; int64_t DecodedFP;
	...;
} umt_ins_rec;
typedef struct {
	int16_t RegName; int16_t Size; uint8_t Flags; uint8_t BeforeSlot; uint8_t AfterSlot;
	uint8_t BeforeOffset; uint8_t AfterOffset;
	...;
} umt_exp_oper;
typedef struct {
	int16_t RegName; int16_t CommonRegName; int16_t ValueSize; uint16_t Offset; uint8_t AddrWidth;
	...;
} umt_lc_slot;
typedef struct {
	int16_t Category; int16_t Mnemonic; int16_t Form; uint8_t Flags; uint8_t ExpCount;
	umt_exp_oper ExpOper[4]; uint8_t EffOperSize; uint8_t EffAddrSize; uint16_t LCSize;
	uint8_t FirstOutSlot; uint8_t FirstAfterSlot; uint8_t LCCount; uint8_t Mem0SegSlot;
	uint8_t Mem0BaseSlot; uint8_t Mem0Scale; uint8_t Mem0IndexSlot; uint8_t Mem1BaseSlot;
	int64_t ConstSlot[2];
	...;
} umt_decoded_ins;
typedef struct {
	int16_t RawID; int16_t UniformID; uint8_t Convention; uint8_t Completed; uint8_t ArgCount;
	uint8_t ExtraCount; int64_t BeginEID; int64_t EndEID; int64_t BeforeSP; int64_t Result;
	int64_t ArgsFP; int64_t ExtrasFP;
	...;
} umt_syscall_rec;
typedef struct {
	int64_t LoadEID; int64_t UnloadEID; int64_t StartAddr; int64_t EndAddr; int64_t WinNameFP;
	int64_t DeviceNameFP;
	...;
} umt_module_rec;
typedef struct {
	int64_t LoadEID; int64_t UnloadEID; int64_t StartAddr; int64_t EndAddr; int64_t WinNameFP;
	int64_t DeviceNameFP; uint64_t LastFileWriteTime; uint16_t VersionInfo[4];
	...;
} umt_module_rec_2015;
typedef struct {
	int32_t ID; int32_t WinTID; int64_t TIBAddr; int64_t FirstEID; int64_t LastEID; int64_t RecCount;
	...;
} umt_thread_rec;
typedef struct { int64_t First; int64_t Last; ...; } umt_address_range;
typedef struct { uint16_t Offset; uint8_t Size; int16_t EffLargest; ...; } umt_reg_info;
typedef struct {
	uint16_t DumpSize; uint16_t ElemCount; int16_t CommonName[512]; char StrName[512][16];
	umt_reg_info RegMap32[512]; umt_reg_info RegMap64[512];
	...;
} umt_context_map;

/* 1-2. version, errors */
const char *umt_version(void);
const char *umt_strerror(int status);
const char *umt_errmsg(void);

/* 3. opening */
typedef struct umt_trace umt_trace;
const char *umt_file_name(int file);
int umt_trace_open(const char *dir, unsigned flags, umt_trace **out);
void umt_trace_close(umt_trace *t);
int umt_trace_changed(const umt_trace *t);
uint64_t umt_trace_file_size(const umt_trace *t, int file);
typedef struct {
	uint64_t size; int64_t mtime_sec; int64_t mtime_nsec; int present; const uint8_t *head;
	size_t head_size;
	...;
} umt_file_stamp;
int umt_trace_file_stamp(const umt_trace *t, int file, umt_file_stamp *out);
typedef struct {
	uint64_t exec_count; int32_t exec_version; int32_t ins_record_version; uint64_t ins_count;
	uint64_t syscall_count; int32_t syscall_version; int32_t unified_ids_version;
	uint64_t module_count; uint64_t module_row_size; uint64_t thread_count;
	uint64_t thread_row_size; uint64_t address_range_count; uint32_t dump_size;
	uint32_t context_map_elems; int has_trace_xml; int salvaged; uint64_t exec_declared;
	uint64_t ins_declared; uint64_t syscall_declared; uint64_t module_declared;
	uint64_t thread_declared; uint64_t address_range_declared; int file_status[...];
	const char *file_problem[...];
	...;
} umt_trace_info;
int umt_trace_get_info(const umt_trace *t, umt_trace_info *out);
uint64_t umt_exec_count(const umt_trace *t);

/* 4. records */
typedef struct {
	const uint8_t *data; uint64_t size; uint64_t id; uint64_t offset; int32_t thread_id;
	uint8_t type; uint8_t flags;
	...;
} umt_rec;
int umt_exec_get(const umt_trace *t, uint64_t id, umt_rec *out);
const char *umt_rec_type_name(int type);
int umt_rec_type_from_name(const char *name);
const char *umt_exec_flag_name(int exec_version, unsigned bit);
int umt_rec_ins(const umt_rec *r, int64_t *ins_id, const uint8_t **lc, uint64_t *lc_size);
int umt_rec_syscall_id(const umt_rec *r, int64_t *syscall_id);
int umt_rec_exit_code(const umt_rec *r, int32_t *exit_code);
int umt_rec_type_has_context(int type);

/* 5. contexts */
typedef struct {
	const uint8_t *base; const uint8_t *regs; uint64_t avail; uint64_t record_id; uint64_t offset;
	uint32_t regs_size; uint32_t mem_count; int is_64bit;
	...;
} umt_context;
typedef struct { uint64_t address; uint64_t size; const uint8_t *data; ...; } umt_mem_ref;
int umt_rec_context(const umt_trace *t, const umt_rec *r, umt_context *out);
int umt_context_mem_get(const umt_context *c, uint32_t index, umt_mem_ref *out);

/* 6. iterators */
typedef struct { ...; } umt_thread_iter;
int umt_thread_iter_init(umt_thread_iter *it, const umt_trace *t, uint64_t start_id, int direction);
int umt_thread_iter_init_thread(umt_thread_iter *it, const umt_trace *t, uint64_t thread);
int umt_exec_links(const umt_trace *t, uint64_t id, int64_t *prev, int64_t *next);
int umt_exec_split(const umt_trace *t, unsigned n, uint64_t *bounds);
int umt_exec_advise(const umt_trace *t, uint64_t begin, uint64_t end, int advice);

/* 7. instructions */
uint64_t umt_ins_count(const umt_trace *t);
int umt_ins_slot_name_kind(const umt_trace *t);
int umt_ins_get(const umt_trace *t, uint64_t id, const umt_ins_rec **row);
int umt_ins_code(const umt_trace *t, uint64_t id, const uint8_t **bytes, unsigned *size);
int umt_ins_disasm(const umt_trace *t, uint64_t id, const char **text, size_t *len);
typedef struct {
	const umt_decoded_ins *ins; const umt_lc_slot *slots; uint64_t ins_id; uint64_t offset;
	...;
} umt_decoded;
int umt_ins_decoded(const umt_trace *t, uint64_t ins_id, umt_decoded *out);
int umt_decoded_slot_group(const umt_decoded *d, unsigned slot);

/* 8. operands */
typedef struct { const uint8_t *data; uint32_t size; int is_const; ...; } umt_value;
typedef struct {
	umt_decoded dec; const uint8_t *lc; uint64_t lc_size; uint64_t record_id; uint64_t lc_offset;
	int64_t ins_id; int is_64bit;
	...;
} umt_ins_exec;
int umt_rec_ins_exec(const umt_trace *t, const umt_rec *r, umt_ins_exec *out);
int umt_operand_kind(const umt_ins_exec *x, unsigned i);
int umt_operand_value(const umt_ins_exec *x, unsigned i, int when, umt_value *out);
int umt_operand_address(const umt_ins_exec *x, unsigned i, uint64_t *address);
typedef struct {
	int16_t seg_reg; int16_t base_reg; int16_t index_reg; uint64_t seg; uint64_t base;
	uint64_t index; uint8_t scale; int64_t disp; uint64_t ea;
	...;
} umt_mem_phrase;
int umt_ins_exec_phrase(const umt_ins_exec *x, int which, umt_mem_phrase *out);
int umt_lc_slot_value(const umt_ins_exec *x, unsigned slot, umt_value *value, uint64_t *address);
int umt_lc_find_reg(const umt_trace *t, const umt_ins_exec *x, int reg, int when, umt_value *out);

/* 8b. accesses */
typedef struct {
	uint64_t record_id; int32_t thread_id; uint64_t address; uint64_t size; const uint8_t *data;
	uint32_t locator; int16_t reg_name; uint8_t kind; uint8_t trust; uint8_t phase;
	uint8_t addr_width;
	...;
} umt_access;
typedef struct { ...; } umt_access_iter;
int umt_access_iter_init(umt_access_iter *it, const umt_trace *t, const umt_rec *r, unsigned kinds);
int umt_access_iter_next(umt_access_iter *it, umt_access *out);
const char *umt_access_kind_name(unsigned kind);
unsigned umt_exec_reliability(int exec_version, unsigned flags);

/* 9. context map and registers */
const umt_context_map *umt_context_map_get(const umt_trace *t);
typedef struct {
	int reg; char name[17]; int common; umt_reg_info map32; umt_reg_info map64; int in32; int in64;
	...;
} umt_reg_desc;
int umt_context_map_reg(const umt_trace *t, int reg, umt_reg_desc *out);
int umt_reg_by_name(const umt_trace *t, const char *name);
int umt_context_reg(const umt_trace *t, const umt_context *c, int reg, umt_value *out);

/* 10. syscalls */
uint64_t umt_syscall_count(const umt_trace *t);
typedef struct {
	const umt_syscall_rec *rec; uint64_t id; uint64_t offset; uint64_t size; const uint8_t *args;
	const uint8_t *extras; uint64_t extras_size; int args_fp_absolute;
	...;
} umt_syscall;
int umt_syscall_get(const umt_trace *t, uint64_t id, umt_syscall *out);
int umt_syscall_arg(const umt_syscall *s, unsigned i, uint64_t *value);
int umt_rec_syscall(const umt_trace *t, const umt_rec *r, umt_syscall *out);

/* 11. modules */
uint64_t umt_module_count(const umt_trace *t);
int umt_module_get(const umt_trace *t, uint64_t id, const umt_module_rec **row);
long umt_module_name(const umt_trace *t, uint64_t id, int which, char *buf, size_t size);
int umt_module_find(const umt_trace *t, uint64_t address, uint64_t eid, uint64_t *module_id);
int umt_ins_module(const umt_trace *t, uint64_t ins_id, uint64_t *module_id);

/* 12, 13. threads, address space */
uint64_t umt_thread_count(const umt_trace *t);
int umt_thread_get(const umt_trace *t, uint64_t id, const umt_thread_rec **row);
int umt_thread_find_win_tid(const umt_trace *t, int32_t win_tid, uint64_t *id);
uint64_t umt_address_range_count(const umt_trace *t);
int umt_address_range_get(const umt_trace *t, uint64_t id, const umt_address_range **row);
int umt_address_space_find(const umt_trace *t, uint64_t address, uint64_t *id);

/* 14. trace.xml */
typedef struct umt_meta umt_meta;
int umt_trace_meta(const umt_trace *t, const umt_meta **out);
int umt_meta_layout(const umt_meta *m);
const char *umt_meta_get(const umt_meta *m, const char *path);
size_t umt_meta_leaf_count(const umt_meta *m);
int umt_meta_leaf(const umt_meta *m, size_t i, const char **path, const char **text);
typedef struct {
	int layout; const char *xed_version; int64_t xed_date; int xed_is_pin_build; int64_t xed_number;
	const char *process_id; int64_t pid; int bitness; const char *app_command_line;
	const char *pin_version; const char *pin_command_line; const char *pin_working_directory;
	const char *os_id; const char *os_name; int has_xmm; int has_ymm; int has_zmm;
	const char *raw_trace_date; const char *umtracer_version; int ins_format_version;
	int ins_begin_record_version; int exec_format_version; int syscall_table_version;
	...;
} umt_meta_info;
int umt_meta_get_info(const umt_meta *m, umt_meta_info *out);
int umt_trace_meta_check(const umt_trace *t);

/* 15. names */
const char *umt_xed_reg_name(int64_t xed_date, int reg);
const char *umt_reg_name(const umt_trace *t, int reg, char *buf, size_t size);
typedef struct umt_enum umt_enum;
size_t umt_enum_count(const umt_enum *e);
int umt_enum_entry(const umt_enum *e, size_t index, const char **name, int64_t *value);
const char *umt_enum_name(const umt_enum *e, int64_t value);
typedef struct umt_names umt_names;
int umt_names_load_dir(const char *dir, umt_names **out);
void umt_names_free(umt_names *n);
const umt_enum *umt_names_table(const umt_names *n, int which);
int64_t umt_names_xed_date(const umt_names *n);
int umt_names_check(const umt_names *n, const umt_trace *t);
const char *umt_names_mnemonic(const umt_names *n, int value);
const char *umt_names_form(const umt_names *n, int value);
const char *umt_names_category(const umt_names *n, int value);
const char *umt_names_syscall(const umt_names *n, int ids_version, int value);

/* 16. verify */
typedef struct {
	int status; int severity; unsigned check; int file; int64_t id; uint64_t offset;
	const char *message;
	...;
} umt_problem;
typedef struct {
	unsigned checks; uint64_t max_problems;
	int (*on_problem)(const umt_problem *p, void *ctx);
	void (*on_progress)(uint64_t done, uint64_t total, void *ctx);
	void *ctx;
	...;
} umt_verify_options;
typedef struct {
	uint64_t errors; uint64_t warnings; uint64_t records; int stopped; ...;
} umt_verify_result;
void umt_verify_options_init(umt_verify_options *o);
int umt_verify(const umt_trace *t, const umt_verify_options *o, umt_verify_result *out);

/* the constants (values from the headers) */
enum umt_status {
	UMT_OK, UMT_E_INVAL, UMT_E_RANGE, UMT_E_NOMEM, UMT_E_IO, UMT_E_MISSING, UMT_E_VERSION,
	UMT_E_TRUNCATED, UMT_E_BOUNDS, UMT_E_TYPE, UMT_E_CORRUPT, UMT_E_XML, UMT_E_NOT_FOUND,
	UMT_E_NO_VALUE, UMT_E_INCOMPLETE, UMT_E_STALE, ...
};
enum umt_file_id {
	UMT_FILE_EXEC_VTABLE, UMT_FILE_EXEC_OFFSETS, UMT_FILE_EXEC_PREV_NEXT, UMT_FILE_INS,
	UMT_FILE_SYSCALL_VTABLE, UMT_FILE_SYSCALL_OFFSETS, UMT_FILE_MODULE, UMT_FILE_THREAD,
	UMT_FILE_CONTEXT_MAP, UMT_FILE_ADDRESS_SPACE, UMT_FILE_TRACE_XML, UMT_FILE_COUNT, ...
};
enum umt_open_flag { UMT_OPEN_SEQUENTIAL, UMT_OPEN_RANDOM, UMT_OPEN_SALVAGE, ... };
enum umt_file_status { UMT_FILE_INTACT, UMT_FILE_REDUCED, UMT_FILE_UNAVAILABLE, ... };
enum umt_rec_type {
	UMT_REC_INSTRUCTION, UMT_REC_THREAD_BEGIN, UMT_REC_THREAD_END, UMT_REC_APP_END,
	UMT_REC_SYSCALL_ENTRY, UMT_REC_SYSCALL_EXIT, UMT_REC_SYSCALL_SKIPPED, UMT_REC_CTX_APC,
	UMT_REC_CTX_EXCEPTION, UMT_REC_CTX_CALLBACK, UMT_REC_CTX_UNKNOWN, ...
};
#define UMT_REC_TYPE_LIMIT ...
enum umt_exec_flag {
	UMT_EXEC_F_64BIT, UMT_EXEC_F_INSTR_OFF, UMT_EXEC_F_NOT_EXECUTED, UMT_EXEC_F_REP_FIRST, ...
};
#define UMT_EXEC_F_INCOMPLETE_MASK ...
enum umt_ins_type {
	UMT_INS_NORMAL, UMT_INS_SOFT_INT, UMT_INS_FAST_SYSCALL32, UMT_INS_FAST_SYSCALL64,
	UMT_INS_ALT_SYSCALL, UMT_INS_WOW64_SYSCALL, UMT_INS_OTHER_SYSCALL, UMT_INS_NOP,
	UMT_INS_PREFETCH, ...
};
enum umt_decoded_flag {
	UMT_DEC_F_REP, UMT_DEC_F_REPNE, UMT_DEC_F_LOCK, UMT_DEC_F_32IN64, UMT_DEC_F_READS_MEM,
	UMT_DEC_F_WRITES_MEM, ...
};
enum umt_oper_flag { UMT_OPER_F_READ, UMT_OPER_F_WRITE, ... };
enum umt_slot_index { UMT_SLOT_IMM0, UMT_SLOT_IMM1, UMT_SLOT_NA, ... };
enum umt_slot_group {
	UMT_SLOT_GROUP_BEFORE, UMT_SLOT_GROUP_BEFORE_WRITE_ONLY, UMT_SLOT_GROUP_AFTER, ...
};
enum umt_syscall_convention {
	UMT_SYSCALL_CONV_UNKNOWN, UMT_SYSCALL_CONV_FAST32, UMT_SYSCALL_CONV_FAST64,
	UMT_SYSCALL_CONV_ALT, UMT_SYSCALL_CONV_WOW64, UMT_SYSCALL_CONV_SOFT_INT, ...
};
enum umt_when { UMT_BEFORE, UMT_AFTER, ... };
enum umt_operand_kind {
	UMT_KIND_REGISTER, UMT_KIND_MEMORY, UMT_KIND_AGEN, UMT_KIND_IMMEDIATE, ...
};
enum umt_access_kind {
	UMT_ACCESS_READ, UMT_ACCESS_WRITE, UMT_ACCESS_PEEK, UMT_ACCESS_CONTEXT, ...
};
#define UMT_ACCESS_ALL ...
enum umt_trust { UMT_TRUST_ADDRESS, UMT_TRUST_VALUE, ... };
enum umt_rec_reliability { UMT_RELIABLE_INPUTS, UMT_RELIABLE_OUTPUTS, ... };
enum umt_direction { UMT_FORWARD, UMT_BACKWARD, ... };
enum umt_advice {
	UMT_ADVISE_NORMAL, UMT_ADVISE_SEQUENTIAL, UMT_ADVISE_RANDOM, UMT_ADVISE_WILLNEED,
	UMT_ADVISE_DONTNEED, ...
};
enum umt_module_name { UMT_MODULE_WIN_NAME, UMT_MODULE_DEVICE_NAME, ... };
enum umt_meta_layout { UMT_META_NONE, UMT_META_ROOTLESS, UMT_META_2015, ... };
enum umt_names_table {
	UMT_NAMES_REG, UMT_NAMES_ICLASS, UMT_NAMES_IFORM, UMT_NAMES_CATEGORY, UMT_NAMES_SYSCALL0,
	UMT_NAMES_SYSCALL1, ...
};
enum umt_check {
	UMT_CHECK_EXEC, UMT_CHECK_LINKS, UMT_CHECK_INS, UMT_CHECK_MEM0, UMT_CHECK_SYSCALLS,
	UMT_CHECK_MODULES, UMT_CHECK_THREADS, UMT_CHECK_ADDRESS_SPACE, UMT_CHECK_XML,
	UMT_CHECK_CONTEXT_MAP, UMT_CHECK_ALL, ...
};
enum umt_severity { UMT_SEVERITY_ERROR, UMT_SEVERITY_WARNING, ... };
#define UMT_REG_NAME_MAX ...
