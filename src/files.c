/*
 * libumtrace - the names of a trace's files, by umt_file_id.
 *
 * A file of its own: opening files (map.c) and wording messages about them
 * (error.c) both need the names, and neither should depend on the other.
 */
#include "internal.h"

static const char *const file_names[UMT_FILE_COUNT] = {
	[UMT_FILE_EXEC_VTABLE] = "exec.vtable",
	[UMT_FILE_EXEC_OFFSETS] = "exec.offsets",
	[UMT_FILE_EXEC_PREV_NEXT] = "exec.prev_next.column",
	[UMT_FILE_INS] = "ins.itable",
	[UMT_FILE_SYSCALL_VTABLE] = "syscall.vtable",
	[UMT_FILE_SYSCALL_OFFSETS] = "syscall.offsets",
	[UMT_FILE_MODULE] = "module.itable",
	[UMT_FILE_THREAD] = "thread.itable",
	[UMT_FILE_CONTEXT_MAP] = "context_map.itable",
	[UMT_FILE_ADDRESS_SPACE] = "address_space.itable",
	[UMT_FILE_TRACE_XML] = "trace.xml",
};

const char *umt_file_name(int file)
{
	if (file < 0 || file >= UMT_FILE_COUNT)
		return "?";
	return file_names[file];
}
