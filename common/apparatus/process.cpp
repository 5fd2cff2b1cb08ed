/// \file process.cpp
/// \brief Runs a helper program with posix_spawn, pipes and a time limit (see process.hpp).
#include "common/apparatus/process.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "common/apparatus/files.hpp"

extern char** environ;

namespace app {
namespace {

constexpr std::size_t kKeepStderr = 4096;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string ProcessResult::describe(std::chrono::milliseconds limit) const {
  if (!started) return "could not be started: " + error;
  if (timed_out) {
    const auto ms = limit.count();
    const std::string amount = ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
    return "did not finish within " + amount + " and was stopped";
  }
  if (output_overflow) return "wrote more than " + std::to_string(stdout_bytes.size()) + " bytes and was stopped";
  if (signal != 0) return "was killed by signal " + std::to_string(signal) + ", " + ::strsignal(signal);
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

void exec_without_blas_thread_pool(const std::vector<std::string>& args) {
  using GetThreads = int (*)();
  void* get_threads = ::dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  if (get_threads == nullptr || reinterpret_cast<GetThreads>(get_threads)() <= 1) return;
  if (const char* set = std::getenv("OPENBLAS_NUM_THREADS"); set != nullptr && std::string(set) == "1") return;
  // The arguments as this process received them (NUL-separated in /proc/self/cmdline), else as
  // main was given them: without /proc the program is run again all the same.
  std::vector<std::string> words;
  if (const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC); fd >= 0) {
    std::string text;
    std::array<char, 4096> buffer{};
    for (ssize_t n; (n = ::read(fd, buffer.data(), buffer.size())) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text.append(buffer.data(), static_cast<std::size_t>(n));
    }
    ::close(fd);
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t end = std::min(text.find('\0', start), text.size());
      words.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }
  if (words.empty()) words = args;
  if (words.empty()) return;
  // The program itself: /proc/self/exe, else the path it was started by (AT_EXECFN; relative to
  // the working folder, which has not changed yet).
  std::string program = "/proc/self/exe";
  if (::access(program.c_str(), X_OK) != 0) {
    const auto* path = reinterpret_cast<const char*>(::getauxval(AT_EXECFN));
    if (path == nullptr) return;
    program = path;
  }
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  if (::setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0) return;
  ::execv(program.c_str(), argv.data());
  ::unsetenv("OPENBLAS_NUM_THREADS");  // not run again: carry on with the pool
}

void reserve_blas_buffers(unsigned threads) {
  using Alloc = void* (*)(int);
  using Free = void (*)(void*);
  using SetThreads = void (*)(int);
  void* alloc = ::dlsym(RTLD_DEFAULT, "blas_memory_alloc");
  void* release = ::dlsym(RTLD_DEFAULT, "blas_memory_free");
  void* set_threads = ::dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (alloc == nullptr || release == nullptr || set_threads == nullptr) return;  // not OpenBLAS
  reinterpret_cast<SetThreads>(set_threads)(1);
  threads = std::max(threads, 1u);
  const std::size_t bytes = kBlasBufferBytes * threads;
  void* probe = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) {
    const int e = errno;
    throw std::runtime_error("out of memory: the linear algebra library (OpenBLAS) needs " +
                             std::to_string(bytes >> 20) + " MiB of address space for its work buffers (" +
                             std::to_string(threads) + " x 128 MiB), more than this process may use (" + os_reason(e) +
                             "; see ulimit -v)");
  }
  ::munmap(probe, bytes);
  std::vector<void*> held;
  for (unsigned t = 0; t < threads; ++t) held.push_back(reinterpret_cast<Alloc>(alloc)(0));  // distinct buffers
  for (void* buffer : held) {
    if (buffer != nullptr) reinterpret_cast<Free>(release)(buffer);  // kept mapped, free for reuse
  }
}

int call_with_large_stack(const std::function<int()>& body) {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= kStackBytes)
    return body();
  pthread_attr_t attr;
  if (::pthread_attr_init(&attr) != 0) return body();
  ::pthread_attr_setstacksize(&attr, kStackBytes);
  ::pthread_setattr_default_np(&attr);  // every later thread (a trainer's) gets the same stack
  struct Call {
    const std::function<int()>* body;
    int code = 0;
    std::exception_ptr error;
  } call{&body, 0, nullptr};
  const auto start = [](void* p) -> void* {
    auto* c = static_cast<Call*>(p);
    try {
      c->code = (*c->body)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  pthread_t thread;
  const int created = ::pthread_create(&thread, &attr, start, &call);
  ::pthread_attr_destroy(&attr);
  if (created != 0) return body();  // no thread (a memory limit): the small stack it is
  ::pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
  return call.code;
}

int reserve_standard_descriptors() {
  int closed = 0;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);  // the lowest free number: fd itself
    if (got >= 0 && got != fd) {
      ::dup2(got, fd);
      ::close(got);
    }
    closed |= 1 << fd;
  }
  return closed;
}

// ---- SigpipeGuard -----------------------------------------------------------------------------------

SigpipeGuard::SigpipeGuard() {
  sigset_t pipe_only, old;
  ::sigemptyset(&pipe_only);
  ::sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  was_blocked_ = ::sigismember(&old, SIGPIPE) == 1;
}

SigpipeGuard::~SigpipeGuard() {
  if (was_blocked_) return;
  sigset_t pipe_only;
  ::sigemptyset(&pipe_only);
  ::sigaddset(&pipe_only, SIGPIPE);
  const timespec now{0, 0};
  while (::sigtimedwait(&pipe_only, nullptr, &now) == SIGPIPE) {
  }
  ::pthread_sigmask(SIG_UNBLOCK, &pipe_only, nullptr);
}

// ---- ChildProcess -----------------------------------------------------------------------------------

namespace {

/// Starts `program` with `in0`, `out1`, `err1` as its standard descriptors, in `working_dir` and its
/// own process group, the default disposition of the stop signals and none blocked; returns
/// posix_spawn's error number (0: started, `pid` set and named to the cleanup handler).
int spawn_in_group(pid_t& pid, const std::filesystem::path& program, const std::vector<std::string>& args,
                   const std::filesystem::path& working_dir, int in0, int out1, int err1) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawnattr_init(&attr);
  ::posix_spawn_file_actions_adddup2(&actions, in0, 0);  // dup2 clears close-on-exec on 0, 1, 2 only
  ::posix_spawn_file_actions_adddup2(&actions, out1, 1);
  ::posix_spawn_file_actions_adddup2(&actions, err1, 2);
  ::posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
  sigset_t none, defaults;
  ::sigemptyset(&none);
  ::sigemptyset(&defaults);
  add_terminating_signals(defaults);  // the handlers of this program are not the child's
  ::sigaddset(&defaults, SIGXFSZ);
  ::posix_spawnattr_setsigmask(&attr, &none);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  ::posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout kills gnuplot and anything it started
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<std::string> owned(args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);

  // The child is named to the cleanup handler at once, so a signal between spawn and wait stops it.
  sigset_t block, old;
  ::sigemptyset(&block);
  add_terminating_signals(block);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), environ);
  if (rc == 0) set_child_for_cleanup(pid);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  return rc;
}

}  // namespace

ChildProcess::ChildProcess(const std::filesystem::path& program, const std::vector<std::string>& args,
                           const std::filesystem::path& working_dir, std::chrono::milliseconds limit,
                           std::size_t max_output)
    : max_output_(max_output), deadline_(std::chrono::steady_clock::now() + limit) {
  reserve_standard_descriptors();  // the pipes below must not take the numbers 0-2
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    result_.error = os_reason(errno);
    for (int* p : {in, out, err}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
    return;
  }
  const int rc = spawn_in_group(pid_, program, args, working_dir, in[0], out[1], err[1]);
  close_fd(in[0]);
  close_fd(out[1]);
  close_fd(err[1]);
  if (rc != 0) {
    pid_ = -1;
    result_.error = os_reason(rc);
    close_fd(in[1]);
    close_fd(out[0]);
    close_fd(err[0]);
    return;
  }
  result_.started = true;
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
  ::fcntl(in_, F_SETFL, ::fcntl(in_, F_GETFL) | O_NONBLOCK);  // never block on a child that stopped reading
}

ChildProcess::~ChildProcess() {
  if (!finished_ && pid_ > 0) {
    kill_group();
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    set_child_for_cleanup(0);
  }
  close_fd(in_);
  close_fd(out_);
  close_fd(err_);
}

void ChildProcess::kill_group() {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
}

/// One poll over the child's outputs (and, if `want_write`, its input): reads whatever the outputs
/// hold; returns true if the input can take a PIPE_BUF-sized write.
bool ChildProcess::pump(int timeout_ms, bool want_write) {
  std::array<pollfd, 3> fds{};
  nfds_t n = 0;
  int out_slot = -1, err_slot = -1, in_slot = -1;
  if (out_ >= 0) fds[out_slot = static_cast<int>(n++)] = {out_, POLLIN, 0};
  if (err_ >= 0) fds[err_slot = static_cast<int>(n++)] = {err_, POLLIN, 0};
  if (want_write && in_ >= 0 && !input_closed_) fds[in_slot = static_cast<int>(n++)] = {in_, POLLOUT, 0};
  if (n == 0) return false;
  const int ready = ::poll(fds.data(), n, timeout_ms);
  if (ready <= 0) return false;
  std::vector<char> buffer(65536);  // on the heap: a small stack (ulimit -s 64) must not overflow
  const auto drain = [&](int slot, int& fd, bool is_out) {
    if (slot < 0 || (fds[static_cast<std::size_t>(slot)].revents & (POLLIN | POLLHUP | POLLERR)) == 0) return;
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) return;
    if (got <= 0) {
      close_fd(fd);  // the child (and anything holding this pipe) closed it
      return;
    }
    std::string& sink = is_out ? result_.stdout_bytes : result_.stderr_text;
    sink.append(buffer.data(), static_cast<std::size_t>(got));
    if (is_out && sink.size() > max_output_) {
      result_.output_overflow = true;
      sink.resize(max_output_);
    }
    if (!is_out && sink.size() > 2 * kKeepStderr) sink.erase(0, sink.size() - kKeepStderr);
  };
  drain(out_slot, out_, true);
  drain(err_slot, err_, false);
  if (in_slot < 0) return false;
  const short revents = fds[static_cast<std::size_t>(in_slot)].revents;
  if (revents & (POLLERR | POLLHUP | POLLNVAL)) {
    input_closed_ = true;  // the child closed its input: nothing more can be sent
    return false;
  }
  return (revents & POLLOUT) != 0;
}

bool ChildProcess::wait_writable() {
  if (in_ < 0 || input_closed_) return false;
  for (;;) {
    if (result_.output_overflow) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    if (pump(static_cast<int>(std::min<long long>(left, 1000)), true)) return true;
    if (input_closed_) return false;
  }
}

ProcessResult ChildProcess::finish() {
  if (finished_ || !result_.started) return result_;
  finished_ = true;
  close_fd(in_);
  while ((out_ >= 0 || err_ >= 0) && !result_.output_overflow) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      result_.timed_out = true;
      break;
    }
    pump(static_cast<int>(std::min<long long>(left, 1000)), false);
  }
  // Both outputs closed: the child is exiting; wait for it, still within the limit.
  int status = 0;
  while (!result_.timed_out && !result_.output_overflow) {
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline_) {
      result_.timed_out = true;
      break;
    }
    ::usleep(2000);
  }
  if (result_.timed_out || result_.output_overflow) {
    kill_group();
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  set_child_for_cleanup(0);
  close_fd(out_);
  close_fd(err_);
  if (result_.stderr_text.size() > kKeepStderr) {
    result_.stderr_text.erase(0, result_.stderr_text.size() - kKeepStderr);
  }
  if (!result_.timed_out && !result_.output_overflow) {
    if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result_.signal = WTERMSIG(status);
  }
  return result_;
}

ProcessResult run_process(const std::filesystem::path& program, const std::vector<std::string>& args,
                          const std::filesystem::path& working_dir, std::chrono::milliseconds limit,
                          const std::string& input, std::size_t max_output) {
  ChildProcess child(program, args, working_dir, limit, max_output);
  if (!child.started()) return child.finish();
  const int fd = child.input_fd();
  {
    const SigpipeGuard guard;
    for (std::size_t done = 0; done < input.size() && child.wait_writable();) {
      const std::size_t n = std::min<std::size_t>(input.size() - done, 4096);
      const ssize_t wrote = ::write(fd, input.data() + done, n);
      if (wrote < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (wrote <= 0) break;  // EPIPE: it exited; finish() says how
      done += static_cast<std::size_t>(wrote);
    }
  }
  return child.finish();
}

}  // namespace app
