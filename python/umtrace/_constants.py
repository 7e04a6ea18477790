"""The format's and the library's constants as Python enums, with the values
of the C headers (read from the compiled extension, not repeated here)."""
import enum

from ._ffi import lib


class RecType(enum.IntEnum):
    """Type of an execution record (execRec.Type, spec 6.4)."""
    INSTRUCTION = lib.UMT_REC_INSTRUCTION
    THREAD_BEGIN = lib.UMT_REC_THREAD_BEGIN
    THREAD_END = lib.UMT_REC_THREAD_END
    APP_END = lib.UMT_REC_APP_END
    SYSCALL_ENTRY = lib.UMT_REC_SYSCALL_ENTRY
    SYSCALL_EXIT = lib.UMT_REC_SYSCALL_EXIT
    SYSCALL_SKIPPED = lib.UMT_REC_SYSCALL_SKIPPED
    CTX_APC = lib.UMT_REC_CTX_APC
    CTX_EXCEPTION = lib.UMT_REC_CTX_EXCEPTION
    CTX_CALLBACK = lib.UMT_REC_CTX_CALLBACK
    CTX_UNKNOWN = lib.UMT_REC_CTX_UNKNOWN


class ExecFlag(enum.IntFlag):
    """execRec.Flags common to both exec.vtable versions; the meaning of
    0x10-0x80 depends on the version (Trace.flag_names() names them)."""
    X64 = lib.UMT_EXEC_F_64BIT
    INSTR_OFF = lib.UMT_EXEC_F_INSTR_OFF
    NOT_EXECUTED = lib.UMT_EXEC_F_NOT_EXECUTED
    REP_FIRST = lib.UMT_EXEC_F_REP_FIRST
    INCOMPLETE = lib.UMT_EXEC_F_INCOMPLETE_MASK


class InsType(enum.IntEnum):
    """insRec.Type (spec 7.3.3)."""
    NORMAL = lib.UMT_INS_NORMAL
    SOFT_INT = lib.UMT_INS_SOFT_INT
    FAST_SYSCALL32 = lib.UMT_INS_FAST_SYSCALL32
    FAST_SYSCALL64 = lib.UMT_INS_FAST_SYSCALL64
    ALT_SYSCALL = lib.UMT_INS_ALT_SYSCALL
    WOW64_SYSCALL = lib.UMT_INS_WOW64_SYSCALL
    OTHER_SYSCALL = lib.UMT_INS_OTHER_SYSCALL
    NOP = lib.UMT_INS_NOP
    PREFETCH = lib.UMT_INS_PREFETCH


class OperandKind(enum.IntEnum):
    """What an explicit operand designates (umt_operand_kind())."""
    REGISTER = lib.UMT_KIND_REGISTER
    MEMORY = lib.UMT_KIND_MEMORY
    AGEN = lib.UMT_KIND_AGEN
    IMMEDIATE = lib.UMT_KIND_IMMEDIATE


class SlotGroup(enum.IntEnum):
    """Group of a local-context slot (umt_decoded_slot_group())."""
    BEFORE = lib.UMT_SLOT_GROUP_BEFORE
    BEFORE_WRITE_ONLY = lib.UMT_SLOT_GROUP_BEFORE_WRITE_ONLY
    AFTER = lib.UMT_SLOT_GROUP_AFTER


class Access(enum.IntFlag):
    """Kinds of memory accesses (umtrace.h section 8b): READ and WRITE are the
    program's, PEEK the old content of a write-only operand, CONTEXT a
    memory block of a register context."""
    READ = lib.UMT_ACCESS_READ
    WRITE = lib.UMT_ACCESS_WRITE
    PEEK = lib.UMT_ACCESS_PEEK
    CONTEXT = lib.UMT_ACCESS_CONTEXT
    ALL = lib.UMT_ACCESS_ALL


class Trust(enum.IntFlag):
    """What of an access can be believed (enum umt_trust)."""
    ADDRESS = lib.UMT_TRUST_ADDRESS
    VALUE = lib.UMT_TRUST_VALUE


class Reliability(enum.IntFlag):
    """What of a record can be believed, from its flags (umt_exec_reliability())."""
    INPUTS = lib.UMT_RELIABLE_INPUTS
    OUTPUTS = lib.UMT_RELIABLE_OUTPUTS


class Convention(enum.IntEnum):
    """syscallRec.Convention."""
    UNKNOWN = lib.UMT_SYSCALL_CONV_UNKNOWN
    FAST32 = lib.UMT_SYSCALL_CONV_FAST32
    FAST64 = lib.UMT_SYSCALL_CONV_FAST64
    ALT = lib.UMT_SYSCALL_CONV_ALT
    WOW64 = lib.UMT_SYSCALL_CONV_WOW64
    SOFT_INT = lib.UMT_SYSCALL_CONV_SOFT_INT


class Check(enum.IntFlag):
    """Classes of checks of Trace.verify() (enum umt_check)."""
    EXEC = lib.UMT_CHECK_EXEC
    LINKS = lib.UMT_CHECK_LINKS
    INS = lib.UMT_CHECK_INS
    MEM0 = lib.UMT_CHECK_MEM0
    SYSCALLS = lib.UMT_CHECK_SYSCALLS
    MODULES = lib.UMT_CHECK_MODULES
    THREADS = lib.UMT_CHECK_THREADS
    ADDRESS_SPACE = lib.UMT_CHECK_ADDRESS_SPACE
    XML = lib.UMT_CHECK_XML
    CONTEXT_MAP = lib.UMT_CHECK_CONTEXT_MAP
    ALL = lib.UMT_CHECK_ALL


class Severity(enum.IntEnum):
    """How serious a problem of Trace.verify() is."""
    ERROR = lib.UMT_SEVERITY_ERROR
    WARNING = lib.UMT_SEVERITY_WARNING


class Phase(enum.IntEnum):
    """Phases of an index build, as the progress callback receives them."""
    SCAN = lib.UMT_INDEX_PHASE_SCAN
    MERGE = lib.UMT_INDEX_PHASE_MERGE
    WRITE = lib.UMT_INDEX_PHASE_WRITE


class File(enum.IntEnum):
    """The files of a trace (enum umt_file_id); Trace.file_name() names them."""
    EXEC_VTABLE = lib.UMT_FILE_EXEC_VTABLE
    EXEC_OFFSETS = lib.UMT_FILE_EXEC_OFFSETS
    EXEC_PREV_NEXT = lib.UMT_FILE_EXEC_PREV_NEXT
    INS = lib.UMT_FILE_INS
    SYSCALL_VTABLE = lib.UMT_FILE_SYSCALL_VTABLE
    SYSCALL_OFFSETS = lib.UMT_FILE_SYSCALL_OFFSETS
    MODULE = lib.UMT_FILE_MODULE
    THREAD = lib.UMT_FILE_THREAD
    CONTEXT_MAP = lib.UMT_FILE_CONTEXT_MAP
    ADDRESS_SPACE = lib.UMT_FILE_ADDRESS_SPACE
    TRACE_XML = lib.UMT_FILE_TRACE_XML


#: the source of a byte no record observed (Index.mem())
NO_RECORD = lib.UMT_NO_RECORD
#: the slot index of "no slot" (an operand without an after value)
SLOT_NA = lib.UMT_SLOT_NA
