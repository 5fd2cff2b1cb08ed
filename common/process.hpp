/// \file process.hpp
/// \brief Runs a helper program (gnuplot) directly, never through a shell, with a time limit.
///
/// The program is started with posix_spawn from an argument vector, so no argument is ever parsed
/// as shell code. It runs in its own process group in a chosen working directory, with standard
/// input and output on /dev/null and standard error captured (its last 4 KiB kept). Past the time
/// limit the whole group is killed with SIGKILL. No temporary folder (TMPDIR) is used.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace attn {

/// How a helper program ended.
struct ProcessResult {
  bool started = false;    ///< false: it could not be started (see `error`)
  bool timed_out = false;  ///< killed at the time limit
  int exit_code = -1;      ///< its exit status when it exited normally, else -1
  int signal = 0;          ///< the signal that ended it (0 if it exited), e.g. SIGSEGV
  std::string error;       ///< why it could not be started
  std::string stderr_text; ///< the last 4 KiB it wrote to standard error

  /// True if it exited by itself with status 0. Throws nothing.
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  /// One phrase for messages: "exited with status 1", "was killed by signal 11 (Segmentation fault)",
  /// "did not finish within 20 s", "could not be started: ...".
  /// Throws nothing (beyond std::bad_alloc).
  std::string describe(std::chrono::milliseconds limit) const;
  /// The last non-empty line of `stderr_text` (what gnuplot says last names the error), or "".
  /// Throws nothing (beyond std::bad_alloc).
  std::string last_stderr_line() const;
};

/// Runs `program` (an absolute path) with `args` (args[0] is the name it sees) in `working_dir`,
/// waiting at most `limit`. While it runs, the cleanup handler of files.hpp knows its process
/// group, so a SIGINT or SIGTERM to this program stops it too. Failures to start, crashes and
/// timeouts are reported in the ProcessResult; throws nothing (beyond std::bad_alloc).
ProcessResult run_process(const std::filesystem::path& program, const std::vector<std::string>& args,
                          const std::filesystem::path& working_dir, std::chrono::milliseconds limit);

}  // namespace attn
