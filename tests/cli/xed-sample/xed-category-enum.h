/*
 * Synthetic header for the umtdump CLI tests, NOT Intel XED's: it names the
 * illustrative Category values of the sample trace (tools/mksample/mksample.c)
 * and of tests/cli/mkfixture.c, in XED's layout.
 */
typedef enum {
  XED_CATEGORY_INVALID = 0,
  XED_CATEGORY_BINARY = 2,
  XED_CATEGORY_DATAXFER = 3,
  XED_CATEGORY_RET = 4,
  XED_CATEGORY_STRINGOP = 5,
  XED_CATEGORY_PUSH = 6,
  XED_CATEGORY_SYSCALL = 7,
  XED_CATEGORY_WIDENOP = 9,
  XED_CATEGORY_LAST
} xed_category_enum_t;
