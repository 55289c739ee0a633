"""`proctree` on Windows: a new process group (for CTRL_BREAK_EVENT) and a Job Object
that holds the child and every process it starts, so the whole tree can be ended even
when a process in the middle (`npx.cmd` -> `cmd.exe` -> `node`) has already exited.

The child is put in the job just after it starts (`subprocess` cannot start it suspended):
a process it starts in that first instant is outside the job, and `taskkill /T` still
finds it while its parent lives. The job is made with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE:
should `mrtr` itself die, Windows ends the tree when the job's last handle closes. When no
job can be made (an old Windows that forbids nested jobs), `end_now` falls back on
`taskkill /T /F`, which follows parent links only.

The program is found as a shell would (`shutil.which`, so `npx` finds `npx.cmd`), and a
batch file (`.cmd`, `.bat`) is run through `cmd.exe` with its arguments quoted for it, or
refused when no quoting is safe (`_shellwords_windows.batch_command_line`).

Imports only the standard library; `ctypes` loads only when a child starts.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys

from mrtr_cli.platform._windows.shellwords import UnsafeArgument, batch_command_line

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

#: The job of each child `start` made, by pid, until `end_escaped` closes it.
_jobs: dict[int, int] = {}
#: How long `taskkill` may take (seconds).
_TASKKILL_TIMEOUT = 10.0

_JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
_JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
_JOB_OBJECT_BASIC_ACCOUNTING_INFORMATION = 1
_PROCESS_SET_QUOTA = 0x0100
_PROCESS_TERMINATE = 0x0001


def program(argv: list[str]) -> tuple[list[str] | str, str | None]:
    """What `subprocess.Popen` is given for `argv`: (args, executable). The program is
    looked up on PATH with PATHEXT (`npx` -> `npx.cmd`); a batch file runs through cmd.exe
    (`ComSpec`) with a command line quoted for it.

    Raises:
        UnsafeArgument: a batch file with an argument cmd.exe would expand or split
            (CVE-2024-24576: batch files parse their own arguments).
    """
    import shutil  # noqa: PLC0415 - lazy for start-up time

    found = shutil.which(argv[0]) or argv[0]
    if found.lower().endswith((".cmd", ".bat")):
        comspec = os.environ.get("COMSPEC") or os.path.join(os.environ.get("SYSTEMROOT", r"C:\Windows"),
                                                            "System32", "cmd.exe")
        return batch_command_line(found, argv[1:]), comspec
    return [found, *argv[1:]], None


def start(argv: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(argv, **popen)` in a process group of its own, put in a Job Object.

    Raises:
        OSError: the command cannot be started; EINVAL, saying why, for a batch file with
            an argument that cannot be passed to it safely (`UnsafeArgument`).
    """
    try:
        args, executable = program(argv)
    except UnsafeArgument as exc:
        raise OSError(errno.EINVAL, f"{argv[0]} is a batch file, and its {exc}") from None
    if sys.platform != "win32":  # this module runs on Windows only (the platform facade); for the type checker
        raise AssertionError("Windows only")
    flags = int(popen.pop("creationflags", 0)) | subprocess.CREATE_NEW_PROCESS_GROUP
    proc: subprocess.Popen[bytes] = subprocess.Popen(args, executable=executable, creationflags=flags, **popen)
    job = _new_job()
    if job:
        if _assign(job, proc.pid):
            _jobs[proc.pid] = job
        else:
            _close(job)
    return proc


_k32: Any = None


def _kernel32() -> Any:
    """kernel32.dll (loaded once)."""
    global _k32  # noqa: PLW0603 - the process's one handle to kernel32, loaded once
    if _k32 is None:
        import ctypes  # noqa: PLC0415 - lazy for start-up time

        if sys.platform != "win32":  # this module runs on Windows only (the platform facade); for the type checker
            raise AssertionError("Windows only")
        _k32 = ctypes.WinDLL("kernel32", use_last_error=True)
    return _k32


def _new_job() -> int:
    """A new Job Object that ends its processes when its last handle closes; 0 on failure."""
    import ctypes  # noqa: PLC0415 - lazy for start-up time
    from ctypes import wintypes  # noqa: PLC0415 - lazy for start-up time

    class BasicLimits(ctypes.Structure):
        _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64), ("PerJobUserTimeLimit", ctypes.c_int64),
                    ("LimitFlags", wintypes.DWORD), ("MinimumWorkingSetSize", ctypes.c_size_t),
                    ("MaximumWorkingSetSize", ctypes.c_size_t), ("ActiveProcessLimit", wintypes.DWORD),
                    ("Affinity", ctypes.c_size_t), ("PriorityClass", wintypes.DWORD),
                    ("SchedulingClass", wintypes.DWORD)]

    class IoCounters(ctypes.Structure):
        _fields_ = [(name, ctypes.c_uint64) for name in (
            "ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
            "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]

    class ExtendedLimits(ctypes.Structure):
        _fields_ = [("BasicLimitInformation", BasicLimits), ("IoInfo", IoCounters),
                    ("ProcessMemoryLimit", ctypes.c_size_t), ("JobMemoryLimit", ctypes.c_size_t),
                    ("PeakProcessMemoryUsed", ctypes.c_size_t), ("PeakJobMemoryUsed", ctypes.c_size_t)]

    try:
        k32 = _kernel32()
        k32.CreateJobObjectW.restype = wintypes.HANDLE
        k32.CreateJobObjectW.argtypes = (ctypes.c_void_p, wintypes.LPCWSTR)
        job = k32.CreateJobObjectW(None, None)
        if not job:
            return 0
        limits = ExtendedLimits()
        limits.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        k32.SetInformationJobObject.argtypes = (wintypes.HANDLE, ctypes.c_int, ctypes.c_void_p, wintypes.DWORD)
        if not k32.SetInformationJobObject(job, _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION, ctypes.byref(limits),
                                           ctypes.sizeof(limits)):
            _close(job)
            return 0
        return int(job)
    except (OSError, AttributeError):
        return 0


def _assign(job: int, pid: int) -> bool:
    """Put process `pid` in `job`; False when it cannot be (it already exited, no access)."""
    from ctypes import wintypes  # noqa: PLC0415 - lazy for start-up time

    try:
        k32 = _kernel32()
        k32.OpenProcess.restype = wintypes.HANDLE
        k32.OpenProcess.argtypes = (wintypes.DWORD, wintypes.BOOL, wintypes.DWORD)
        handle = k32.OpenProcess(_PROCESS_SET_QUOTA | _PROCESS_TERMINATE, False, pid)
        if not handle:
            return False
        try:
            k32.AssignProcessToJobObject.argtypes = (wintypes.HANDLE, wintypes.HANDLE)
            return bool(k32.AssignProcessToJobObject(job, handle))
        finally:
            _close(int(handle))
    except (OSError, AttributeError):
        return False


def _close(handle: int) -> None:
    from ctypes import wintypes  # noqa: PLC0415 - lazy for start-up time

    try:
        k32 = _kernel32()
        k32.CloseHandle.argtypes = (wintypes.HANDLE,)
        k32.CloseHandle(handle)
    except (OSError, AttributeError):
        pass


def _active(job: int) -> int | None:
    """How many processes of `job` are running, or None when it cannot be told."""
    import ctypes  # noqa: PLC0415 - lazy for start-up time
    from ctypes import wintypes  # noqa: PLC0415 - lazy for start-up time

    class Accounting(ctypes.Structure):
        _fields_ = [("TotalUserTime", ctypes.c_int64), ("TotalKernelTime", ctypes.c_int64),
                    ("ThisPeriodTotalUserTime", ctypes.c_int64), ("ThisPeriodTotalKernelTime", ctypes.c_int64),
                    ("TotalPageFaultCount", wintypes.DWORD), ("TotalProcesses", wintypes.DWORD),
                    ("ActiveProcesses", wintypes.DWORD), ("TotalTerminatedProcesses", wintypes.DWORD)]

    try:
        k32 = _kernel32()
        info = Accounting()
        k32.QueryInformationJobObject.argtypes = (wintypes.HANDLE, ctypes.c_int, ctypes.c_void_p, wintypes.DWORD,
                                                  ctypes.c_void_p)
        if not k32.QueryInformationJobObject(job, _JOB_OBJECT_BASIC_ACCOUNTING_INFORMATION, ctypes.byref(info),
                                             ctypes.sizeof(info), None):
            return None
        return int(info.ActiveProcesses)
    except (OSError, AttributeError):
        return None


def ask_to_end(proc: subprocess.Popen[bytes]) -> bool:
    """CTRL_BREAK_EVENT to the child's process group (Python and Node.js end on it by
    default); False when nobody was left or the event cannot be sent (no shared console).
    Never raises."""
    if not any_left(proc):
        return False
    if sys.platform != "win32":  # this module runs on Windows only (the platform facade); for the type checker
        raise AssertionError("Windows only")
    try:
        os.kill(proc.pid, signal.CTRL_BREAK_EVENT)
        return True
    except OSError:
        return False


def end_now(proc: subprocess.Popen[bytes]) -> bool:
    """End the job (every process in it), else `taskkill /T /F` on the child's tree and the
    child itself. Never raises."""
    job = _jobs.get(proc.pid)
    if job:
        try:
            k32 = _kernel32()
            if k32.TerminateJobObject(job, 1):
                return True
        except (OSError, AttributeError):
            pass
    if proc.poll() is not None:
        return False
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(["taskkill", "/T", "/F", "/PID", str(proc.pid)], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=_TASKKILL_TIMEOUT, check=False)
    try:
        if proc.poll() is None:
            proc.kill()
        return True
    except OSError:
        return False


def any_left(proc: subprocess.Popen[bytes]) -> bool:
    """True while any process of the child's job runs (without a job: the child itself)."""
    job = _jobs.get(proc.pid)
    active = _active(job) if job else None
    if active is not None:
        return active > 0
    return proc.poll() is None


def exited_within(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """True: the caller's `Popen.wait` does the waiting."""
    return True


def end_escaped(proc: subprocess.Popen[bytes], marking: str, grace: float) -> None:
    """Close the child's job: Windows ends whatever is left in it (the job was made with
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE). `marking` and `grace` are not needed here. Never raises."""
    job = _jobs.pop(proc.pid, 0)
    if job:
        _close(job)
