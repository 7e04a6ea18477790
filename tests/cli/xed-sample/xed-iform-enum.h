/*
 * Synthetic header for the umtdump CLI tests, NOT Intel XED's: it names the
 * illustrative Form values (Mnemonic * 3 + 1) of the sample trace
 * (tools/mksample/mksample.c) and of tests/cli/mkfixture.c, in XED's layout.
 */
typedef enum {
  XED_IFORM_INVALID = 0,
  XED_IFORM_INT_IMMb = 901,
  XED_IFORM_LEA_GPRv_AGEN = 1147,
  XED_IFORM_MOV_GPRv_MEMv = 1300,
  XED_IFORM_MOVSB = 1366,
  XED_IFORM_NOP_90 = 1489,
  XED_IFORM_SUB_GPRv_IMMb = 1909,
  XED_IFORM_PUSH_GPRv_50 = 2026,
  XED_IFORM_RET_NEAR = 2116,
  XED_IFORM_SYSCALL = 2275,
  XED_IFORM_LAST
} xed_iform_enum_t;
