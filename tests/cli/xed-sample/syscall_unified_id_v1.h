/*
 * Synthetic header for the umtdump CLI tests, NOT the format
 * documentation's: it names the two unified IDs of the sample trace
 * (tools/mksample/mksample.c). There is deliberately no
 * syscall_unified_id_v0.h: the 2014 fixture tests the note about it.
 */
typedef enum {
  SYSCALL_NtCreateFile_0500_11 = 0xd0,
  SYSCALL_NtWaitForSingleObject_0500_3 = 0x1a2
} SyscallUnifiedIdEnum;
