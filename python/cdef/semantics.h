/* cffi declarations of umtrace.h section 7b: instruction semantics (Zydis). */
typedef struct {
	uint64_t target; uint16_t mnemonic; uint8_t category; uint8_t length; uint8_t flags;
	uint8_t operand_count; uint8_t zydis_category;
	...;
} umt_sem;
int umt_sem_get(const umt_trace *t, uint64_t ins_id, umt_sem *out);
const char *umt_sem_mnemonic_name(unsigned mnemonic);
const char *umt_sem_category_name(int category);
const char *umt_sem_zydis_category_name(unsigned category);
typedef struct {
	uint8_t kind; uint8_t access; uint16_t bits; const char *reg; const char *segment;
	const char *base; const char *index; uint8_t scale; int64_t disp; uint64_t value;
	uint16_t selector; uint8_t has_absolute; uint64_t absolute;
	...;
} umt_sem_operand;
typedef struct {
	umt_sem sem; unsigned operand_count; umt_sem_operand operands[5]; char text[160];
	...;
} umt_sem_detail;
int umt_sem_decode(const umt_trace *t, uint64_t ins_id, umt_sem_detail *out);
#define UMT_SEM_F_TARGET ...
