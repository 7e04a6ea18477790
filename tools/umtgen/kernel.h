/*
 * umtgen: the simulated kernel. System calls (entry, the kernel's effects,
 * exit records with the memory it wrote), the table of the system calls it
 * knows, and exceptions (dispatch to a handler up the stack).
 */
#ifndef UMTGEN_KERNEL_H
#define UMTGEN_KERNEL_H

#include <stdint.h>

/* A system call the kernel implements (SYS_* order of progbuild.h). */
struct sysdef {
	const char *name;   /* exported name, e.g. "NtReadFile" */
	uint16_t raw;       /* Windows 7 SP1 x64 service number */
	uint8_t nargs;      /* arguments of the prototype */
	int16_t uid[2];     /* unified ID in syscall_unified_id_v0.h and _v1.h */
};

extern const struct sysdef sysdefs[];
extern const int sysdef_count;

#endif
