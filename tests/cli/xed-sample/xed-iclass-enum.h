/*
 * Synthetic header for the umtdump CLI tests, NOT Intel XED's: it names the
 * illustrative Mnemonic values of the sample trace (tools/mksample/mksample.c)
 * and of tests/cli/mkfixture.c, in XED's layout, so that the tests can check
 * the --xed-dir path. Real traces need the headers of their XED version.
 */
typedef enum {
  XED_ICLASS_INVALID = 0,
  XED_ICLASS_INT = 300,
  XED_ICLASS_LEA = 382,
  XED_ICLASS_MOV = 433,
  XED_ICLASS_MOVSB = 455,
  XED_ICLASS_NOP = 496,
  XED_ICLASS_SUB = 636,
  XED_ICLASS_PUSH = 675,
  XED_ICLASS_RET_NEAR = 705,
  XED_ICLASS_SYSCALL = 758,
  XED_ICLASS_LAST
} xed_iclass_enum_t;
