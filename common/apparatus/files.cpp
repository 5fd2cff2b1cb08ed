/// \file files.cpp
/// \brief Atomic files, bounded reads and cleanup on signals (see files.hpp).
#include "common/apparatus/files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "common/attention/checks.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// ---- the registry the signal handler reads ----------------------------------------------------
// Fixed slots of plain char arrays: the handler may only call async-signal-safe functions
// (unlink, kill, raise), so it cannot touch std::string or a std::vector that may be mid-resize.

constexpr std::size_t kSlots = 256;
constexpr std::size_t kPathBytes = 4096;

struct Slot {
  std::atomic<bool> used{false};
  char path[kPathBytes]{};
};

std::array<Slot, kSlots> g_slots;
std::atomic<pid_t> g_child{0};
std::mutex g_slot_mutex;  // between threads that register (the handler does not lock)
std::atomic<unsigned long> g_counter{0};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

extern "C" void cleanup_and_reraise(int sig) {
  const int saved = errno;
  for (Slot& s : g_slots) {
    if (s.used.load()) ::unlink(s.path);
  }
  if (const pid_t child = g_child.load(); child > 0) ::kill(-child, SIGKILL);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved;
  ::raise(sig);  // delivered when the handler returns: the program ends as the signal intends
}

int register_temp(const fs::path& path) {
  install_cleanup_handlers();
  const std::string text = path.string();
  if (text.size() + 1 > kPathBytes) return -1;  // too long to register; the destructor still removes it
  std::lock_guard<std::mutex> lock(g_slot_mutex);
  for (std::size_t i = 0; i < kSlots; ++i) {
    if (!g_slots[i].used.load()) {
      std::memcpy(g_slots[i].path, text.c_str(), text.size() + 1);
      g_slots[i].used.store(true);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot < 0) return;
  std::lock_guard<std::mutex> lock(g_slot_mutex);
  g_slots[static_cast<std::size_t>(slot)].used.store(false);
}

bool safe_name_chars(const std::string& text) {
  for (char c : text) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string os_reason(int error_number) { return std::strerror(error_number); }

std::string quoted_path(const fs::path& path) {
  const std::string text = path.string();
  std::string shown = printable(text, std::string::npos);
  if (shown.size() > 160) {
    shown =
        shown.substr(0, 60) + "..." + shown.substr(shown.size() - 80) + " (" + std::to_string(text.size()) + " bytes)";
  }
  return "'" + shown + "'";
}

void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_IGN) continue;  // respect nohup and friends
      struct sigaction act {};
      act.sa_handler = cleanup_and_reraise;
      ::sigemptyset(&act.sa_mask);
      for (int other : kSignals) ::sigaddset(&act.sa_mask, other);  // one cleanup at a time
      ::sigaction(sig, &act, nullptr);
    }
    // A file-size limit (ulimit -f) would otherwise end the program with SIGXFSZ mid-write,
    // leaving a partial temporary; ignored, the write fails with EFBIG ("File too large") and is
    // reported like a full disk. Children get the default back (process.cpp).
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGXFSZ, &ignore, nullptr);
  });
}

void set_child_for_cleanup(pid_t process_group) { g_child.store(process_group); }

// ---- TempPath ----------------------------------------------------------------------------------

TempPath::TempPath(const fs::path& folder, const std::string& extension) {
  if (!safe_name_chars(extension)) throw std::invalid_argument("TempPath: unsafe extension " + quoted(extension));
  const std::string name =
      ".attn-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(g_counter.fetch_add(1)) + extension;
  path_ = (folder.empty() ? fs::path(".") : folder) / name;
  slot_ = register_temp(path_);
}

TempPath::~TempPath() {
  if (!committed_) ::unlink(path_.c_str());
  unregister_temp(slot_);
}

void TempPath::write_all(const std::string& text, const std::string& what) {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  int e = fd < 0 ? errno : 0;
  for (std::size_t done = 0; e == 0 && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      e = n < 0 ? errno : ENOSPC;
    else
      done += static_cast<std::size_t>(n);
  }
  if (fd >= 0 && ::close(fd) != 0 && e == 0) e = errno;
  if (e != 0) throw IoError("cannot write " + what + " into " + quoted_path(path_.parent_path()) + ": " + os_reason(e));
}

void TempPath::commit(const fs::path& target) {
  if (const std::string problem = replace_problem(target); !problem.empty()) throw IoError(problem);
  if (::rename(path_.c_str(), target.c_str()) != 0) {
    const int e = errno;
    throw IoError("cannot put " + quoted_path(target) + " in place: " + os_reason(e));
  }
  committed_ = true;
}

// ---- AtomicFile --------------------------------------------------------------------------------

AtomicFile::AtomicFile(fs::path target)
    : target_(std::move(target)),
      temp_(target_.parent_path(),
            safe_name_chars(target_.extension().string()) ? target_.extension().string() : std::string()) {
  if (const std::string problem = replace_problem(target_); !problem.empty()) throw IoError(problem);
  fd_ = ::open(temp_.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int e = errno;
    throw IoError("cannot write " + quoted_path(target_) + ": " + os_reason(e));
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AtomicFile::write(const std::string& bytes) {
  if (fd_ < 0) throw std::logic_error("AtomicFile::write after close");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : ENOSPC;
      throw IoError("cannot write " + quoted_path(target_) + ": " + os_reason(e));
    }
    done += static_cast<std::size_t>(n);
  }
}

void AtomicFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int e = errno;
    throw IoError("cannot write " + quoted_path(target_) + ": " + os_reason(e));
  }
}

void AtomicFile::commit() {
  close();
  temp_.commit(target_);
}

void AtomicFile::commit_all(std::vector<AtomicFile*> files) {
  for (AtomicFile* f : files) f->close();
  sigset_t block, old;
  ::sigemptyset(&block);
  for (int sig : kSignals) ::sigaddset(&block, sig);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  try {
    for (AtomicFile* f : files) f->temp_.commit(f->target_);
  } catch (...) {
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

// ---- reading -----------------------------------------------------------------------------------

std::string read_input_file(const fs::path& path, std::size_t limit) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int e = errno;
    throw InputFileError("cannot read " + quoted_path(path) + ": " + os_reason(e));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    throw InputFileError("cannot read " + quoted_path(path) + ": " + os_reason(e));
  }
  if (!S_ISREG(st.st_mode)) {
    throw InputFileError(quoted_path(path) + " is " + file_type(st.st_mode) + ", not a regular file");
  }
  if (static_cast<unsigned long long>(st.st_size) > limit) {
    throw InputFileError(quoted_path(path) + " is " + std::to_string(st.st_size) + " bytes, more than the " +
                         std::to_string(limit) + "-byte limit for input files");
  }
  std::string bytes;
  std::array<char, 65536> buffer{};
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      throw InputFileError("cannot read " + quoted_path(path) + ": " + os_reason(e));
    }
    if (n == 0) break;
    bytes.append(buffer.data(), static_cast<std::size_t>(n));
    if (bytes.size() > limit) {  // the file grew while being read
      throw InputFileError(quoted_path(path) + " is more than the " + std::to_string(limit) +
                           "-byte limit for input files");
    }
  }
  return bytes;
}

std::string replace_problem(const fs::path& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    const int e = errno;  // absent is fine (the file is new); a name the system refuses is not
    return e == ENAMETOOLONG ? "cannot write " + quoted_path(target) + ": " + os_reason(e) : std::string();
  }
  if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) return {};
  return "cannot write " + quoted_path(target) + ": it is " + file_type(st.st_mode) +
         " (only a regular file or a link there is replaced)";
}

std::string folder_problem(const fs::path& folder, bool create) {
  std::error_code ec;
  const fs::path where = folder.empty() ? fs::path(".") : folder;
  if (fs::exists(where, ec) && !fs::is_directory(where, ec)) return quoted_path(folder) + " is a file, not a folder";
  if (create) fs::create_directories(where, ec);
  std::error_code listed;
  if (!fs::is_directory(where, listed)) {
    const std::error_code why = ec ? ec : listed;
    return "cannot create folder " + quoted_path(folder) + (why ? ": " + why.message() : std::string());
  }
  TempPath probe(where, "");  // a real file, created and removed: read-only folders and file systems show
  const int fd = ::open(probe.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int e = errno;
    return "folder " + quoted_path(folder) + " is not writable: " + os_reason(e);
  }
  ::close(fd);
  return {};
}

}  // namespace attn
