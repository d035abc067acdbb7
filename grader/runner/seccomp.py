"""A seccomp-BPF filter the child installs on itself (ctypes, standard library only), last of its layers.

It closes what the file-system layers leave open: the kernel keyrings (per uid, they outlive a run), nested
user, network and mount namespaces, System V IPC and POSIX message queues (they outlive a run too), every new
socket (UDP, pathname and abstract Unix sockets, netlink; ``socketpair`` of stream sockets stays, it reaches
nothing outside), ptrace and cross-process memory access, perf events, eBPF, userfaultfd, io_uring (which would
run socket calls past this filter), mounts, kernel modules, kexec and changes of personality.

A denied call fails with EPERM, so student code sees an ordinary ``PermissionError``; ``clone3`` fails with ENOSYS
so that the C library falls back to ``clone``, whose flags the filter can read (no ``CLONE_NEW*``). Only x86_64
and aarch64 have syscall tables here; elsewhere ``supported()`` is false and nothing is installed or claimed.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000
#: The parent's warning where the filter cannot be installed.
MISSING = ("No seccomp filter on this machine: student code can use kernel keyrings, System V IPC and sockets "
           "other than TCP, and create namespaces.")
#: name: (x86_64, aarch64); None where the architecture has no such call.
SYSCALLS = {
    "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218),
    "unshare": (272, 97), "setns": (308, 268),
    "shmget": (29, 194), "shmat": (30, 196), "shmctl": (31, 195), "shmdt": (67, 197),
    "msgget": (68, 186), "msgsnd": (69, 189), "msgrcv": (70, 188), "msgctl": (71, 187),
    "semget": (64, 190), "semop": (65, 193), "semctl": (66, 191), "semtimedop": (220, 192),
    "mq_open": (240, 180), "mq_unlink": (241, 181), "mq_timedsend": (242, 182), "mq_timedreceive": (243, 183),
    "mq_notify": (244, 184), "mq_getsetattr": (245, 185),
    "socket": (41, 198),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "pidfd_getfd": (438, 438), "perf_event_open": (298, 241), "bpf": (321, 280), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51),
    "open_tree": (428, 428), "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431),
    "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294),
    "init_module": (175, 105), "finit_module": (313, 273), "delete_module": (176, 106),
    "open_by_handle_at": (304, 265), "fanotify_init": (300, 262), "syslog": (103, 116), "acct": (163, 89),
    "swapon": (167, 224), "swapoff": (168, 225), "reboot": (169, 142), "quotactl": (179, 60),
    "sethostname": (170, 161), "setdomainname": (171, 162), "settimeofday": (164, 170),
    "clock_settime": (227, 112), "clock_adjtime": (305, 266), "adjtimex": (159, 171),
    "iopl": (172, None), "ioperm": (173, None), "uselib": (134, None), "_sysctl": (156, None),
}
#: Calls checked on their arguments, not denied outright.
CLONE, CLONE3, SOCKETPAIR, PERSONALITY, SECCOMP = "clone", "clone3", "socketpair", "personality", "seccomp"
SPECIAL = {CLONE: (56, 220), CLONE3: (435, 435), SOCKETPAIR: (53, 199), PERSONALITY: (135, 92),
           SECCOMP: (317, 277)}
#: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (CLONE_NEWTIME shares its bit with the exit
#: signal in clone(); it only works through unshare and clone3, both denied).
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
SOCK_TYPE_MASK, SOCK_STREAM = 0xF, 1
PER_LINUX, PER_QUERY = 0, 0xFFFFFFFF

# classic BPF, as in <linux/filter.h> and <linux/seccomp.h>
LD_W_ABS = 0x00 | 0x00 | 0x20
JEQ_K, JGE_K, JSET_K = 0x05 | 0x10, 0x05 | 0x30, 0x05 | 0x40
AND_K = 0x04 | 0x50
RET_K = 0x06
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
NR, ARCH, ARG0, ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (low words of the 64-bit arguments)

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def machine() -> str:
    name = platform.machine().lower()
    return "aarch64" if name == "arm64" else name


def supported() -> bool:
    """True where the filter can be built (known syscall table) and the kernel has seccomp."""
    if platform.system() != "Linux" or machine() not in AUDIT_ARCH:
        return False
    try:
        with open("/proc/self/status") as status:
            return any(line.startswith("Seccomp:") for line in status)
    except OSError:
        return False


def program(arch: str) -> list[tuple[int, int, int, int]]:
    """The filter for ``arch`` as (code, jt, jf, k) instructions."""
    column = 0 if arch == "x86_64" else 1
    deny = RET_ERRNO | errno.EPERM
    nosys = RET_ERRNO | errno.ENOSYS
    code = [
        (LD_W_ABS, 0, 0, ARCH),
        (JEQ_K, 1, 0, AUDIT_ARCH[arch]),
        (RET_K, 0, 0, nosys),  # another ABI (i386 through int 0x80): other numbers, none of them allowed
        (LD_W_ABS, 0, 0, NR),
    ]
    if arch == "x86_64":
        code += [(JGE_K, 0, 1, X32_SYSCALL_BIT), (RET_K, 0, 0, nosys)]
    for name, numbers in sorted(SYSCALLS.items()):
        number = numbers[column]
        if number is not None:
            code += [(JEQ_K, 0, 1, number), (RET_K, 0, 0, deny)]
    special = {name: numbers[column] for name, numbers in SPECIAL.items()}
    code += [(JEQ_K, 0, 1, special[CLONE3]), (RET_K, 0, 0, nosys)]
    # clone(flags, ...): flags are the first argument on both architectures.
    code += [(JEQ_K, 0, 4, special[CLONE]), (LD_W_ABS, 0, 0, ARG0), (JSET_K, 0, 1, CLONE_NEW_FLAGS),
             (RET_K, 0, 0, deny), (RET_K, 0, 0, RET_ALLOW)]
    # socketpair(domain, type, ...): stream pairs only (a datagram pair could sendto() any socket by name).
    code += [(JEQ_K, 0, 5, special[SOCKETPAIR]), (LD_W_ABS, 0, 0, ARG1), (AND_K, 0, 0, SOCK_TYPE_MASK),
             (JEQ_K, 0, 1, SOCK_STREAM), (RET_K, 0, 0, RET_ALLOW), (RET_K, 0, 0, deny)]
    # personality(persona): querying and the default only.
    code += [(JEQ_K, 0, 5, special[PERSONALITY]), (LD_W_ABS, 0, 0, ARG0), (JEQ_K, 2, 0, PER_QUERY),
             (JEQ_K, 1, 0, PER_LINUX), (RET_K, 0, 0, deny), (RET_K, 0, 0, RET_ALLOW)]
    code.append((RET_K, 0, 0, RET_ALLOW))
    return code


_compiled: dict = {}


def compiled(arch: str | None = None) -> tuple:
    """(the C library, the filter program as the kernel takes it, its length) for ``arch``, built once per process:
    a template builds it before it forks its runs, which then only hand it to the kernel."""
    arch = arch or machine()
    if arch not in _compiled:
        code = program(arch)
        filters = (SockFilter * len(code))(*(SockFilter(c, jt, jf, k) for c, jt, jf, k in code))
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        for name in ("prctl", "unshare"):  # looked up now, not in each child
            getattr(libc, name)
        _compiled[arch] = (libc, SockFprog(len(code), filters), len(code), filters)
    return _compiled[arch][:3]


def install() -> int:
    """Install the filter on this process (all its threads) for good; returns the number of instructions."""
    arch = machine()  # not supported(): /proc may already be out of reach (Landlock); the parent checked it
    if platform.system() != "Linux" or arch not in AUDIT_ARCH:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {platform.system()} {arch}")
    libc, prog, length = compiled(arch)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                  ctypes.c_ulong(0)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(NO_NEW_PRIVS): {os.strerror(err)}")
    number = SPECIAL[SECCOMP][0 if arch == "x86_64" else 1]
    done = libc.syscall(ctypes.c_long(number), ctypes.c_ulong(SECCOMP_SET_MODE_FILTER),
                        ctypes.c_ulong(SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(prog))
    if done != 0:  # an old kernel without seccomp(2): the calling thread only (the child has no other yet)
        if libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(prog), ctypes.c_ulong(0),
                      ctypes.c_ulong(0)) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"seccomp filter: {os.strerror(err)}")
    # unshare(0) changes nothing and succeeds unfiltered: it must now fail (/proc may be out of reach here).
    if libc.unshare(0) == 0 or ctypes.get_errno() != errno.EPERM:
        raise OSError(errno.EPERM, "the seccomp filter did not take hold")
    return length
