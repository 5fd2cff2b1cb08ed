/// \file files.cpp
/// \brief Atomic files, bounded reads and cleanup on signals (see files.hpp).
#include "common/apparatus/files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "common/attention/checks.hpp"

namespace app {

using attn::printable;
using attn::quoted;
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
// While a set of files is renamed into place the handler only records the signal, in whichever
// thread it runs (a signal blocked in one thread is delivered to another, e.g. a BLAS worker);
// the commit raises it again once every rename is done.
std::atomic<bool> g_committing{false};
std::atomic<int> g_deferred{0};

/// Removes every registered temporary and stops the child; async-signal-safe.
void remove_temporaries_and_child() {
  for (Slot& s : g_slots) {
    if (s.used.load()) ::unlink(s.path);
  }
  if (const pid_t child = g_child.load(); child > 0) ::kill(-child, SIGKILL);
}

extern "C" void cleanup_and_reraise(int sig) {
  if (g_committing.load()) {
    g_deferred.store(sig);
    return;
  }
  const int saved = errno;
  remove_temporaries_and_child();
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

/// The process id in a temporary name `.attn-tmp-<pid>-<n><extension>`, or 0 if `name` is not one.
pid_t temp_owner(const std::string& name) {
  const std::string prefix = ".attn-tmp-";
  if (name.rfind(prefix, 0) != 0) return 0;
  std::size_t at = prefix.size();
  long long pid = 0;
  for (; at < name.size() && name[at] >= '0' && name[at] <= '9' && pid < (1LL << 31); ++at)
    pid = pid * 10 + (name[at] - '0');
  if (at == prefix.size() || at >= name.size() || name[at] != '-' || pid <= 0 || pid >= (1LL << 31)) return 0;
  if (at + 1 >= name.size() || name[at + 1] < '0' || name[at + 1] > '9') return 0;
  return static_cast<pid_t>(pid);
}

/// Removes from `folder` the regular files with temporary names whose process no longer runs (a run
/// ended by SIGKILL or power loss, which no handler sees), once per folder and process. A process
/// that runs (or that this one may not signal) keeps its files.
void remove_stale_temporaries(const fs::path& folder) {
  static std::mutex mutex;
  static std::set<std::string> done;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert(folder.string()).second) return;
  }
  std::error_code ec;
  std::size_t seen = 0;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end && seen < 100000; it.increment(ec), ++seen) {
    const std::string name = it->path().filename().string();
    const pid_t owner = temp_owner(name);
    if (owner == 0 || owner == ::getpid()) continue;
    if (::kill(owner, 0) == 0 || errno != ESRCH) continue;  // it runs, or belongs to another user
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(it->path().c_str());
  }
}

bool safe_name_chars(const std::string& text) {
  for (char c : text) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

constexpr std::uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr char kManifestMagic[] = "attn-file-set 1";

std::uint64_t fnv1a(const std::string& bytes, std::uint64_t hash = kFnvOffset) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string hex64(std::uint64_t value) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
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

std::string checksum(const std::string& bytes) { return hex64(fnv1a(bytes)); }

const char* system_folder(const fs::path& folder) {
  std::error_code ec;
  // Both the name as written (/proc/self/cwd/x leads back to a folder of yours, but is named in /proc)
  // and where its links lead (a link into /dev).
  const fs::path named = fs::absolute(folder, ec).lexically_normal(), real = fs::weakly_canonical(folder, ec);
  for (const char* system : {"/dev", "/proc", "/sys"}) {
    const fs::path root(system);
    for (const fs::path& p : {named, real}) {
      if (std::mismatch(root.begin(), root.end(), p.begin(), p.end()).first == root.end()) return system;
    }
  }
  return nullptr;
}

std::string os_reason(int error_number) { return std::strerror(error_number); }

std::string shown_path(const fs::path& path) {
  const std::string text = path.string();
  std::string shown = printable(text, std::string::npos);
  if (shown.size() > 160) {
    shown =
        shown.substr(0, 60) + "..." + shown.substr(shown.size() - 80) + " (" + std::to_string(text.size()) + " bytes)";
  }
  return shown;
}

std::string quoted_path(const fs::path& path) { return "'" + shown_path(path) + "'"; }

std::vector<int> terminating_signals() {
  // Every signal whose default action ends the process and that is sent from outside (kill,
  // a terminal, a timer, a resource limit); the faults of the program itself (SIGSEGV, SIGBUS,
  // SIGFPE, SIGILL) stay with the sanitizers and the default action.
  std::vector<int> signals{SIGHUP,  SIGINT,  SIGQUIT, SIGABRT, SIGPIPE,   SIGALRM, SIGTERM,
                           SIGUSR1, SIGUSR2, SIGPOLL, SIGPROF, SIGVTALRM, SIGXCPU};
#ifdef SIGSTKFLT
  signals.push_back(SIGSTKFLT);
#endif
#ifdef SIGPWR
  signals.push_back(SIGPWR);
#endif
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) signals.push_back(sig);
  return signals;
}

void add_terminating_signals(sigset_t& set) {
  for (const int sig : terminating_signals()) ::sigaddset(&set, sig);
}

void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::vector<int> signals = terminating_signals();
    for (int sig : signals) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      // Respect nohup and friends (ignored), and a handler someone installed before us (a profiler's).
      if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction act {};
      act.sa_handler = cleanup_and_reraise;
      ::sigemptyset(&act.sa_mask);
      for (int other : signals) ::sigaddset(&act.sa_mask, other);  // one cleanup at a time
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

void clean_up_now() { remove_temporaries_and_child(); }

// ---- TempPath ----------------------------------------------------------------------------------

TempPath::TempPath(const fs::path& folder, const std::string& extension) {
  if (!safe_name_chars(extension)) throw std::invalid_argument("TempPath: unsafe extension " + quoted(extension));
  const std::string name =
      ".attn-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(g_counter.fetch_add(1)) + extension;
  path_ = (folder.empty() ? fs::path(".") : folder) / name;
  remove_stale_temporaries(path_.parent_path());
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
  hash_ = fnv1a(bytes, hash_);
  size_ += bytes.size();
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

void AtomicFile::commit_all(std::vector<AtomicFile*> files, const fs::path& manifest,
                            const std::function<void(std::size_t)>& after_rename) {
  std::unique_ptr<AtomicFile> list;
  if (!manifest.empty()) {
    std::string text = std::string(kManifestMagic) + "\n";
    for (const AtomicFile* f : files) {
      if (f->target_.parent_path() != manifest.parent_path()) {
        throw std::logic_error("AtomicFile::commit_all: " + f->target_.string() + " is not beside the manifest");
      }
      text += f->target_.filename().string() + " " + std::to_string(f->size_) + " " + hex64(f->hash_) + "\n";
    }
    list = std::make_unique<AtomicFile>(manifest);
    list->write(text);
    files.insert(files.begin(), list.get());  // renamed first: a set torn later no longer matches it
  }
  for (AtomicFile* f : files) f->close();
  for (AtomicFile* f : files) {  // refused before any rename: a folder or device at one of the names
    if (const std::string problem = replace_problem(f->target_); !problem.empty()) throw IoError(problem);
  }
  sigset_t block, old;
  ::sigemptyset(&block);
  add_terminating_signals(block);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  g_deferred.store(0);
  g_committing.store(true);
  std::exception_ptr failed;
  try {
    for (std::size_t k = 0; k < files.size(); ++k) {
      files[k]->temp_.commit(files[k]->target_);
      if (after_rename) after_rename(k + 1);
    }
  } catch (...) {
    failed = std::current_exception();
  }
  g_committing.store(false);
  if (const int sig = g_deferred.exchange(0); sig != 0) cleanup_and_reraise(sig);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (failed) std::rethrow_exception(failed);
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
  std::vector<char> buffer(65536);  // on the heap: a small stack (ulimit -s 64) must not overflow
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
  std::error_code ec;
  if (const char* system = system_folder(fs::absolute(target, ec).parent_path())) {
    return "cannot write " + quoted_path(target) + ": it is in " + system +
           ", the system's folder of devices and streams; name a file in a folder of yours";
  }
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    const int e = errno;  // absent is fine (the file is new); a name the system refuses is not
    return e == ENOENT ? std::string() : "cannot write " + quoted_path(target) + ": " + os_reason(e);
  }
  const std::string refused = "cannot write " + quoted_path(target) + ": it is ";
  const std::string only = " (only a regular file, or a link to one, is replaced)";
  if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) return refused + file_type(st.st_mode) + only;
  if (S_ISLNK(st.st_mode)) {
    struct stat to {};
    if (::stat(target.c_str(), &to) != 0) {
      const int e = errno;
      return refused + "a link that leads nowhere (" + os_reason(e) + ")" + only;
    }
    if (!S_ISREG(to.st_mode)) return refused + "a link to " + file_type(to.st_mode) + only;
  }
  return {};
}

std::string folder_problem(const fs::path& folder, bool create) {
  std::error_code ec;
  const fs::path where = folder.empty() ? fs::path(".") : folder;
  if (const char* system = system_folder(fs::absolute(where, ec))) {
    return "folder " + quoted_path(folder) + " is in " + system +
           ", the system's folder of devices and streams; name a folder of yours";
  }
  if (fs::exists(where, ec) && !fs::is_directory(where, ec)) return quoted_path(folder) + " is a file, not a folder";
  if (struct stat st{}; ::lstat(where.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && !fs::exists(where, ec)) {
    const fs::path to = fs::read_symlink(where, ec);
    return quoted_path(folder) + " is a link that leads nowhere (to " + quoted_path(to) + "), not a folder";
  }
  if (create) fs::create_directories(where, ec);
  std::error_code listed;
  if (!fs::is_directory(where, listed)) {
    const std::error_code why = ec ? ec : listed;
    if (!create && !fs::exists(where, ec)) return "folder " + quoted_path(folder) + " does not exist";
    return (create ? "cannot create folder " : "cannot use folder ") + quoted_path(folder) +
           (why ? ": " + why.message() : std::string());
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

std::map<std::string, std::string> read_file_set(const fs::path& folder, const std::vector<std::string>& names,
                                                 std::size_t limit, bool manifest_required) {
  std::map<std::string, std::string> files;
  const fs::path manifest = folder / kManifestName;
  struct stat st {};
  const bool absent = ::lstat(manifest.c_str(), &st) != 0 && errno == ENOENT;
  for (const std::string& name : names) files[name] = read_input_file(folder / name, limit);  // FIFOs first
  if (absent && !manifest_required) return files;  // files written by hand: nothing to check them against
  if (absent) {
    throw InputFileError(quoted_path(manifest) + " is missing, so the files beside it cannot be checked to belong " +
                         "together (a set saved by an older version, or not saved whole); save it again");
  }
  std::istringstream list(read_input_file(manifest, kMaxInputFileBytes));
  std::string magic;
  std::getline(list, magic);
  if (magic != kManifestMagic) throw InputFileError(quoted_path(manifest) + " is not a manifest of a saved set");
  std::map<std::string, std::pair<std::string, std::string>> listed;  // name -> (bytes, checksum)
  for (std::string line; std::getline(list, line);) {
    std::istringstream fields(line);
    std::string name, bytes, sum, extra;
    if (!(fields >> name >> bytes >> sum) || (fields >> extra)) {
      throw InputFileError(quoted_path(manifest) + " has a malformed line " + attn::quoted(line));
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw InputFileError(quoted_path(manifest) + " lists " + attn::quoted(name) +
                           ", which is not a file of this set (" + std::to_string(names.size()) +
                           " files): a manifest written by hand or for another set; save the set again");
    }
    if (!listed.emplace(name, std::pair{bytes, sum}).second)
      throw InputFileError(quoted_path(manifest) + " lists " + attn::quoted(name) + " twice");
  }
  for (const auto& [name, bytes] : files) {
    const auto it = listed.find(name);
    if (it == listed.end()) throw InputFileError(quoted_path(manifest) + " does not list " + attn::quoted(name));
    if (it->second.first != std::to_string(bytes.size()) || it->second.second != hex64(fnv1a(bytes))) {
      // A file edited by hand and a file copied in from another save look alike here, so neither is
      // guessed at: where hand-written files are allowed, removing the manifest says they are meant.
      throw InputFileError(quoted_path(folder / name) + " does not match the manifest beside it: the files were " +
                           (manifest_required ? "not saved together (an interrupted or mixed save); save the set again"
                                              : "not saved together, or one was edited by hand; save the set again, "
                                                "or delete manifest.txt to read edited files as they are"));
    }
  }
  return files;
}

}  // namespace app
