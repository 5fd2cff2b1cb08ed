/// \file process.cpp
/// \brief Runs a helper program with posix_spawn and a time limit (see process.hpp).
#include "common/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "common/files.hpp"

extern char** environ;

namespace attn {
namespace {

constexpr std::size_t kKeepStderr = 4096;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string ProcessResult::describe(std::chrono::milliseconds limit) const {
  if (!started) return "could not be started: " + error;
  if (timed_out) {
    const auto ms = limit.count();
    const std::string amount = ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
    return "did not finish within " + amount + " and was stopped";
  }
  if (signal != 0) return "was killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
  return "exited with status " + std::to_string(exit_code);
}

std::string ProcessResult::last_stderr_line() const {
  std::string last;
  std::size_t start = 0;
  while (start <= stderr_text.size()) {
    const std::size_t end = std::min(stderr_text.find('\n', start), stderr_text.size());
    std::string line = stderr_text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos) last = line.substr(first);
    start = end + 1;
  }
  return last;
}

ProcessResult run_process(const std::filesystem::path& program, const std::vector<std::string>& args,
                          const std::filesystem::path& working_dir, std::chrono::milliseconds limit) {
  ProcessResult result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.error = os_reason(errno);
    return result;
  }
  Fd read_end{pipe_fds[0]}, write_end{pipe_fds[1]};

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawnattr_init(&attr);
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_adddup2(&actions, write_end.fd, 2);
  ::posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
  sigset_t none, defaults;
  ::sigemptyset(&none);
  ::sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) ::sigaddset(&defaults, sig);
  ::posix_spawnattr_setsigmask(&attr, &none);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  ::posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout kills gnuplot and anything it started
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<char*> argv;
  std::vector<std::string> owned(args.begin(), args.end());
  for (std::string& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);

  // The child is named to the cleanup handler at once, so a signal between spawn and wait stops it.
  sigset_t block, old;
  ::sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::sigaddset(&block, sig);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), environ);
  if (rc == 0) set_child_for_cleanup(pid);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    result.error = os_reason(rc);
    return result;
  }
  result.started = true;
  ::close(write_end.fd);
  write_end.fd = -1;

  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::array<char, 4096> buffer{};
  bool open = true;
  while (open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{read_end.fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(read_end.fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      open = false;  // the child (and anything holding its stderr) closed it
      break;
    }
    result.stderr_text.append(buffer.data(), static_cast<std::size_t>(n));
    if (result.stderr_text.size() > 2 * kKeepStderr) result.stderr_text.erase(0, result.stderr_text.size() - kKeepStderr);
  }
  // Standard error closed: the child is exiting; wait for it, still within the limit.
  int status = 0;
  while (!result.timed_out) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    ::usleep(2000);
  }
  if (result.timed_out) {
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  set_child_for_cleanup(0);
  if (result.stderr_text.size() > kKeepStderr) result.stderr_text.erase(0, result.stderr_text.size() - kKeepStderr);
  if (!result.timed_out) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace attn
