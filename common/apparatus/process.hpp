/// \file process.hpp
/// \brief Runs a helper program (gnuplot) directly, never through a shell, with a time limit.
///
/// The program is started with posix_spawn from an argument vector, so no argument is ever parsed
/// as shell code. It runs in its own process group in a chosen working directory, with a pipe on
/// each of its standard input, output and error: the caller streams its input (plot.cpp wraps the
/// write end in a gnuplot-iostream `Gnuplot`), its output is collected up to a size limit, and the
/// last 4 KiB of its standard error are kept. The write end is non-blocking and is written only
/// when poll() says the pipe has room, so a program that stops reading cannot block the caller;
/// SIGPIPE from a program that exits early is held back and discarded. Past the time limit the
/// whole group is killed with SIGKILL. No temporary folder (TMPDIR) is used.
///
/// Throws: std::runtime_error "out of memory: .." when the address space for the BLAS buffers is
/// not there (reserve_blas_buffers); what `body` throws, rethrown on the caller's thread
/// (call_with_large_stack). The others throw nothing (beyond std::bad_alloc): a program that cannot
/// be started, crashes or times out is reported in its ProcessResult.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace app {

/// How a helper program ended.
struct ProcessResult {
  bool started = false;          ///< false: it could not be started (see `error`)
  bool timed_out = false;        ///< killed at the time limit
  bool output_overflow = false;  ///< killed because its standard output passed the size limit
  int exit_code = -1;            ///< its exit status when it exited normally, else -1
  int signal = 0;                ///< the signal that ended it (0 if it exited), e.g. SIGSEGV
  std::string error;             ///< why it could not be started
  std::string stdout_bytes;      ///< everything it wrote to standard output (up to the limit)
  std::string stderr_text;       ///< the last 4 KiB it wrote to standard error

  /// True if it exited by itself with status 0.
  bool ok() const { return started && !timed_out && !output_overflow && signal == 0 && exit_code == 0; }
  /// One phrase for messages: "exited with status 1", "was killed by signal 11, Segmentation fault",
  /// "did not finish within 20 s and was stopped", "could not be started: ..".
  std::string describe(std::chrono::milliseconds limit) const;
  /// The last non-empty line of `stderr_text` (what gnuplot says last names the error), or "".
  std::string last_stderr_line() const;
};

/// A helper program running with pipes on its standard input, output and error, and a deadline
/// fixed when it starts. While it runs, the cleanup handler of files.hpp knows its process group,
/// so a SIGINT or SIGTERM to this program stops it too. The destructor kills and reaps it if
/// finish() was not called.
class ChildProcess {
 public:
  /// Starts `program` (an absolute path) with `args` (args[0] is the name it sees) in
  /// `working_dir`; it must finish within `limit`, and its standard output may hold at most
  /// `max_output` bytes. A failure to start is reported by finish() (ProcessResult::started).
  ChildProcess(const std::filesystem::path& program, const std::vector<std::string>& args,
               const std::filesystem::path& working_dir, std::chrono::milliseconds limit, std::size_t max_output);
  /// Kills and reaps the child unless finish() was called.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// True if it was started.
  bool started() const { return result_.started; }
  /// The write end of its standard input (non-blocking, close-on-exec; -1 if not started). Write
  /// to it only after wait_writable() returned true, at most 4096 bytes at a time. A duplicate
  /// (dup) may be written instead, and must be closed before finish(), which closes this end:
  /// the child then reads to the end of its input.
  int input_fd() const { return in_; }
  /// Waits until its standard input can take up to 4096 bytes (PIPE_BUF) in one non-blocking
  /// write, reading its outputs meanwhile. False if the deadline passed, the output limit was
  /// passed, or it closed its standard input (exited): stop writing then.
  bool wait_writable();
  /// Reads both outputs until it closes them, waits for it to exit, all within the deadline
  /// (killing its process group past it), and says how it ended.
  ProcessResult finish();

 private:
  bool pump(int timeout_ms, bool want_write);
  void kill_group();

  ProcessResult result_;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  bool input_closed_ = false;
  bool finished_ = false;
  std::size_t max_output_;
  std::chrono::steady_clock::time_point deadline_;
};

/// Holds SIGPIPE back while a pipe to a child is written (a write to a child that has exited then
/// fails with EPIPE instead of ending this program); the destructor discards a SIGPIPE raised
/// meanwhile and restores the signal mask.
class SigpipeGuard {
 public:
  /// Blocks SIGPIPE for this thread, remembering whether it already was.
  SigpipeGuard();
  /// Discards a pending SIGPIPE and restores the mask.
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  bool was_blocked_ = false;
};

/// Runs `program` with `input` on its standard input (written through the same non-blocking
/// path), waiting at most `limit` in all; collects at most `max_output` bytes of its standard output.
/// Failures are reported in the ProcessResult.
ProcessResult run_process(const std::filesystem::path& program, const std::vector<std::string>& args,
                          const std::filesystem::path& working_dir, std::chrono::milliseconds limit,
                          const std::string& input = "", std::size_t max_output = std::size_t{1} << 20);

/// The address space OpenBLAS maps for one thread's work buffer: 128 MiB (its largest
/// BUFFER_SIZE on x86-64, used by builds that include the AVX-512 kernels, as Debian's does) and
/// a page it adds when it falls back to malloc.
inline constexpr std::size_t kBlasBufferBytes = (std::size_t{128} << 20) + 4096;

/// Runs this program again (same arguments, same process) with OPENBLAS_NUM_THREADS=1 when
/// OpenBLAS is the BLAS in this process and started a thread pool. Each thread of that pool maps
/// a 128 MiB work buffer as it starts, while the libraries load and before main, and when the
/// mapping fails (a memory limit, ulimit -v) it retries forever at 100% CPU; exit() then waits
/// for it forever. Only the variable, read as OpenBLAS loads, keeps the pool from starting.
/// The arguments are read from /proc/self/cmdline, else taken from `args` (main's argv), and the
/// program from /proc/self/exe, else from the path it was started by (so it works without /proc).
/// Call it first in main, before any descriptor is opened or thread started; it returns (and
/// does nothing) when there is no pool, and when the program cannot be run again.
void exec_without_blas_thread_pool(const std::vector<std::string>& args = {});

/// Makes the BLAS kernels of this process unable to hang under a memory limit, when the BLAS is
/// OpenBLAS (looked up at run time; nothing is done for another BLAS). OpenBLAS gives every
/// thread that runs a kernel a work buffer from a table it maps on first use and keeps; when that
/// mapping fails it retries forever. So its own pool is set to one thread, and the buffers for
/// `threads` threads running kernels at once (a trainer's) are mapped now, after the same amount
/// of address space was mapped and released here: later kernels reuse them and never map again.
/// Call it before any other thread runs a BLAS kernel.
void reserve_blas_buffers(unsigned threads);

/// The stack the chapters' work runs on at least (8 MiB, Linux's usual default): the BLAS
/// kernels, Boost's parser and deep printing need far more than a small `ulimit -s` leaves.
inline constexpr std::size_t kStackBytes = std::size_t{8} << 20;

/// Returns `body()`, run on a thread with a stack of kStackBytes when the stack limit (ulimit -s)
/// is smaller, and with every later thread given that stack too; with the usual limit or none it
/// runs right here.
int call_with_large_stack(const std::function<int()>& body);

/// Opens /dev/null on each of the standard descriptors 0, 1 and 2 that is closed, so no file the
/// program opens later takes their number (text meant for a closed standard output would land in
/// a plot file). Returns a bit mask of the ones that were closed (bit k: descriptor k).
/// cli::run() calls it first; it is idempotent.
int reserve_standard_descriptors();

}  // namespace app
