// Files written whole or not at all. What is written goes to a temporary file
// beside the target (same folder, so the rename cannot cross file systems),
// which is renamed over the target only once every write and the close have
// succeeded; on any failure, exception or signal the temporary is removed and
// the target is left as it was. Every file SpX writes goes through here: Matrix
// Market files (spx::io::write, so `spx convert -o` and `spx gen -o`) and
// `spx bench --json` (bench/plot.py does the same in Python).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace spx::detail {

class AtomicFile {
 public:
  /// Creates the temporary beside `target`: `.NAME.spx-tmp-PID-N` in the
  /// target's folder, with the target's permissions when it exists (else
  /// 0666 less the umask). A symbolic link is followed: the file it names is
  /// replaced, the link kept. A target that exists and is not a regular file
  /// (a device such as /dev/stdout or /dev/null, a pipe) is written in place:
  /// there is no file to keep. IoError naming the target when it is a folder,
  /// its folder does not exist or the temporary cannot be created there.
  explicit AtomicFile(const std::filesystem::path& target);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Not committed: closes and removes the temporary.
  ~AtomicFile();

  /// The descriptor to write to (the temporary, or the target written in place).
  int fd() const noexcept { return fd_; }
  /// The target as given, for messages.
  const std::string& name() const noexcept { return name_; }
  /// Writes all of `text`; IoError naming the target on failure.
  void write(std::string_view text);
  /// Flushes the temporary to the disk (fsync), closes it and renames it over
  /// the target. IoError naming the target on failure, the temporary removed.
  void commit();

 private:
  void discard() noexcept;
  [[noreturn]] void fail(const std::string& what, int error);

  std::string name_;                 ///< the target as given
  std::filesystem::path target_;     ///< the file replaced (a link followed)
  std::filesystem::path temporary_;  ///< empty when written in place
  int fd_ = -1;
  int slot_ = -1;  ///< where the temporary is registered for signal clean-up
};

/// Writes `text` to `target` through an AtomicFile.
void write_file_atomically(const std::filesystem::path& target, std::string_view text);

/// Fails as writing `target` would fail at its start (its folder missing or not
/// writable, the target a folder), leaving nothing behind: a temporary is
/// created and removed. For outputs named before long work (`spx bench
/// --json`, `spx convert -o`).
void check_writable(const std::filesystem::path& target);

/// Removes the temporaries of every AtomicFile not committed. Only
/// async-signal-safe calls: for signal handlers (the `spx` tool calls it on
/// SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGXFSZ before dying of the signal).
void remove_temporaries() noexcept;

}  // namespace spx::detail
