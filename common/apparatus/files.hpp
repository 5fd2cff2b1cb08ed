/// \file files.hpp
/// \brief Files that appear whole or not at all, bounded reads of input files, and cleanup on signals.
///
/// Every file a chapter writes (PNG, `.dat`, saved parameters, loss logs) goes through AtomicFile or
/// TempPath: the bytes go to a generated name in the target's own folder (`.attn-tmp-<pid>-<n>.<ext>`,
/// only safe characters), every write and the close are checked, and a rename puts the file in
/// place. rename() replaces whatever is at the target in one step (a previous good file stays until
/// then; a symbolic link at the target is replaced, not followed), so runs into one folder at the
/// same time never see each other's half-written files. A temporary name that is never committed is
/// removed by its destructor, and by a handler for every terminating signal sent from outside
/// (terminating_signals(): SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, ...), which
/// removes every registered temporary name, stops a running child (gnuplot) and then lets the signal
/// end the program as it would have. What no handler sees (SIGKILL, power loss) leaves temporary
/// names behind: the first TempPath made in a folder removes the temporary files there whose
/// process no longer runs (pids of another PID namespace sharing the folder cannot be told apart).
///
/// Throws: IoError (a runtime failure, exit code 1) naming the file and the operating system's
/// reason, e.g. "cannot write plots/ch01_mixtures.dat: No space left on device", when a file cannot
/// be created, written, closed or renamed, or a target may not be replaced (TempPath::write_all,
/// TempPath::commit, AtomicFile, write_file_atomically); InputFileError (a usage error, exit code 2) naming the file
/// and the reason for an input that is unreadable, not a regular file, too large, or not listed in
/// or not saved with its set's manifest (read_input_file, read_file_set); std::invalid_argument for
/// a TempPath extension outside [A-Za-z0-9._-]; std::logic_error for AtomicFile::write after
/// close() and for files that are not beside their manifest (AtomicFile::commit_all). The others
/// throw nothing (beyond std::bad_alloc).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace app {

/// A file could not be written, renamed or read for a reason outside the user's input
/// (disk full, I/O error): a runtime failure, exit code 1.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An input file that is not usable as given (missing, not a regular file, too large): a usage
/// error, exit code 2. Derives from std::invalid_argument, which the error rule maps to 2.
class InputFileError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The operating system's text for an errno value, e.g. "No space left on device".
std::string os_reason(int error_number);

/// A path as error messages show it: non-printable bytes shown as escapes (cli::printable); a path
/// longer than 160 characters keeps its first 60 and last 80 (where the file name is) around "...",
/// with its length in bytes, so the reason after it survives a message's length limit.
std::string shown_path(const std::filesystem::path& path);

/// shown_path() between single quotes, as most messages name a path.
std::string quoted_path(const std::filesystem::path& path);

/// A generated temporary name in `folder`, `.attn-tmp-<pid>-<n><extension>`, registered for removal on
/// a terminating signal and removed by the destructor unless commit() renamed it into place. The
/// first one made in a folder removes the stale temporary files there (those of processes gone).
/// The name holds only [A-Za-z0-9._-], so it is safe to hand to gnuplot relative to `folder`.
/// `extension` (e.g. ".png") must hold only those characters too.
class TempPath {
 public:
  /// Reserves the name in `folder` (nothing is created yet) and registers it for cleanup; removes
  /// the folder's stale temporary files the first time a name is made there.
  TempPath(const std::filesystem::path& folder, const std::string& extension);
  /// Removes the file unless committed, and unregisters the name.
  ~TempPath();
  /// Not copyable: one owner removes the file.
  TempPath(const TempPath&) = delete;
  /// Not copyable: one owner removes the file.
  TempPath& operator=(const TempPath&) = delete;

  /// The full path of the temporary name.
  const std::filesystem::path& path() const { return path_; }
  /// The name alone, relative to its folder (what a child started in that folder is told).
  std::string name() const { return path_.filename().string(); }
  /// Creates the temporary file holding `text` (checked writes and close); a failure's message
  /// names `what` and the folder.
  void write_all(const std::string& text, const std::string& what);
  /// Renames the temporary file onto `target` (same folder), replacing what is there (a folder of
  /// the target's name fails with "Is a directory").
  void commit(const std::filesystem::path& target);

 private:
  std::filesystem::path path_;
  int slot_ = -1;
  bool committed_ = false;
};

/// A file written whole or not at all: bytes go to a TempPath beside `target`; commit() checks the
/// close and renames. Without commit() (an exception, an early return) the temporary is removed
/// and `target` is left as it was.
class AtomicFile {
 public:
  /// Creates the temporary beside `target`, once replace_problem() finds that `target` may be
  /// replaced.
  explicit AtomicFile(std::filesystem::path target);
  /// Closes the file if still open; the temporary is removed unless committed.
  ~AtomicFile();
  /// Not copyable: one owner writes and renames the file.
  AtomicFile(const AtomicFile&) = delete;
  /// Not copyable: one owner writes and renames the file.
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends `bytes`, checking that the system takes them all (not after close()).
  void write(const std::string& bytes);
  /// Closes (checked: a delayed write error surfaces here) and renames onto the target.
  void commit();
  /// Closes (checked) without renaming; commit_all() renames afterwards.
  void close();
  /// The file this will become.
  const std::filesystem::path& target() const { return target_; }
  /// The temporary file being written.
  const std::filesystem::path& temp_path() const { return temp_.path(); }

  /// Commits a set of files (a saved parameter set or model) so that a reader can tell whether
  /// they belong together. Every file is closed first (if any close fails, none is renamed) and
  /// every target is checked with replace_problem(). If `manifest` is given (a path beside the
  /// files), it is written first: one line per file with its name, size in bytes and 64-bit
  /// FNV-1a checksum, read back by read_file_set(); it is renamed before the files, so a set torn
  /// between renames (power loss, SIGKILL) no longer matches it. Every terminating signal
  /// (terminating_signals()) is held back during the renames in every thread (the cleanup handler, in whichever
  /// thread it runs, only records the signal) and delivered once all renames are done: a signal
  /// never tears a set. `after_rename(k)` is called after the k-th rename (tests interrupt there).
  static void commit_all(std::vector<AtomicFile*> files, const std::filesystem::path& manifest = {},
                         const std::function<void(std::size_t)>& after_rename = {});

 private:
  std::filesystem::path target_;
  TempPath temp_;
  int fd_ = -1;
  std::uint64_t hash_ = 14695981039346656037ULL;  // FNV-1a of the bytes written so far
  std::uint64_t size_ = 0;
};

/// The name of the manifest a saved set carries beside its files (AtomicFile::commit_all).
inline constexpr char kManifestName[] = "manifest.txt";

/// Writes `text` to `path` through an AtomicFile: whole or not at all.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

/// The largest input file the programs read (1 MiB): a parameter file of this tutorial is a few
/// kilobytes, and a limit keeps a mistaken path (a log, /dev/zero) from filling memory.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 20;

/// Reads a whole input file after checking, on the opened file itself, that it is a regular file
/// (a FIFO, device, socket or folder is refused: open does not wait for a writer) of at most
/// `limit` bytes.
std::string read_input_file(const std::filesystem::path& path, std::size_t limit = kMaxInputFileBytes);

/// Why an output may not be written at `target`, or "" if it may. Only a regular file, or a
/// symbolic link that leads to one, is replaced (the link itself, never its target); refused are a
/// folder, a device, a FIFO or a socket there, a link to one of them or a link that leads nowhere,
/// any name inside /dev, /proc or /sys (so `/dev/stdout` is never replaced, even when standard
/// output is a file), and a name the system refuses (too long, a parent that is a file).
/// Reports problems as text.
std::string replace_problem(const std::filesystem::path& target);

/// Reads the files `names` of the set saved in `folder` (each through read_input_file with
/// `limit`) and checks each against the folder's manifest (kManifestName, written by
/// AtomicFile::commit_all): listed once, same size, same checksum; a manifest that lists a name
/// outside `names` is refused. Unless `manifest_required` (files that may be written by hand, as
/// chapter 05's parameters), a folder without a manifest is read unchecked. A file that differs from
/// a manifest is refused, whether copied from another save or edited by hand (the two look alike):
/// deleting the manifest is how one says edited files are meant. Returns name -> bytes, each file
/// read once, so the caller parses the bytes that were checked.
std::map<std::string, std::string> read_file_set(const std::filesystem::path& folder,
                                                 const std::vector<std::string>& names, std::size_t limit,
                                                 bool manifest_required);

/// The 64-bit FNV-1a checksum of `bytes` as 16 hexadecimal digits, as a set's manifest records each
/// file's.
std::string checksum(const std::string& bytes);

/// "/dev", "/proc" or "/sys" if `folder` lies in one of the kernel's own folders, which hold
/// streams and settings, never files a chapter writes or reads as data (a link such as /dev/stdout
/// leads to a regular file when stdout is one, yet is the system's); else nullptr. Both the name as
/// written and where its links lead are checked.
const char* system_folder(const std::filesystem::path& folder);

/// Why files cannot be created in `folder` (creating it and its parents first if `create`), or an
/// empty string if they can: a folder inside /dev, /proc or /sys is refused at once; a real file is created and removed
/// there, so read-only folders and file systems are found before any work is done. Reports problems as text.
std::string folder_problem(const std::filesystem::path& folder, bool create = true);

/// The signals whose default action ends the process and that come from outside it: SIGHUP, SIGINT,
/// SIGQUIT, SIGABRT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGPOLL, SIGPROF, SIGVTALRM,
/// SIGXCPU, SIGSTKFLT, SIGPWR and the real-time signals. (The program's own faults, SIGSEGV,
/// SIGBUS, SIGFPE and SIGILL, are left to their default action and the sanitizers.)
std::vector<int> terminating_signals();

/// Adds terminating_signals() to `set`.
void add_terminating_signals(sigset_t& set);

/// Installs the cleanup handler for terminating_signals() (done by the first TempPath;
/// idempotent). Signals ignored at start (e.g. SIGINT under nohup), or given a handler before
/// (a profiler's), are left as they were. SIGXFSZ is
/// ignored, so a write past a file-size limit fails with "File too large" instead of ending the
/// program with a partial temporary left behind.
void install_cleanup_handlers();

/// Tells the cleanup handler which child process group to kill (0: none).
void set_child_for_cleanup(pid_t process_group);

/// Does now what the cleanup handler does: removes every registered temporary file and stops the
/// child (for a program about to end without unwinding). Async-signal-safe.
void clean_up_now();

}  // namespace app
