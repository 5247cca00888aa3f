// Files written whole or not at all (atomic_file.hpp).
#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "spx/core/error.hpp"

namespace spx::detail {
namespace {

namespace fs = std::filesystem;

// The temporaries not yet committed, for remove_temporaries() in a signal
// handler: a fixed table (no allocation), each slot free (0), being filled or
// emptied (1), or holding a path (2).
constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;
struct Slot {
  std::atomic<int> state{0};
  char path[kPathMax] = {};
};
Slot g_slots[kSlots];

/// Registers `path`; -1 when the table is full or the path too long (then a
/// signal leaves that temporary behind; exceptions and errors still remove it).
int register_temporary(const fs::path& path) noexcept {
  const std::string& s = path.native();
  if (s.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int free = 0;
    if (!g_slots[i].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(g_slots[i].path, s.c_str(), s.size() + 1);
    g_slots[i].state.store(2, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_temporary(int slot) noexcept {
  if (slot < 0) return;
  g_slots[slot].state.store(1);
  g_slots[slot].path[0] = '\0';
  g_slots[slot].state.store(0, std::memory_order_release);
}

std::string why(int error) {
  return std::strerror(error);
}

std::atomic<unsigned> g_counter{0};

}  // namespace

void remove_temporaries() noexcept {
  for (Slot& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == 2) ::unlink(slot.path);
}

AtomicFile::AtomicFile(const fs::path& target) : name_(target.string()) {
  if (target.empty()) throw IoError("cannot write a file with an empty name");
  // stat follows links, also the kernel's own (/dev/stdout, /dev/fd/N).
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw IoError(fmt::format("{}: cannot write: it is a folder", name_));
  if (exists && !S_ISREG(st.st_mode)) {  // a device or a pipe: written in place
    fd_ = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw IoError(fmt::format("{}: cannot open for writing: {}", name_, why(errno)));
    target_ = target;
    return;
  }
  // A link is replaced by the file it names, not by a file of its own.
  std::error_code ec;
  target_ = target;
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    const fs::path resolved = fs::weakly_canonical(target, ec);
    if (!ec) target_ = resolved;
  }
  const fs::path folder = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  std::string base = target_.filename().string();
  if (base.size() > 200) base.resize(200);  // room for the suffix within NAME_MAX
  for (int attempt = 0;; ++attempt) {
    temporary_ = folder / fmt::format(".{}.spx-tmp-{}-{}", base, ::getpid(), g_counter++);
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) break;
    const int error = errno;
    if (error == EEXIST && attempt < 1000) continue;
    temporary_.clear();
    if (error == ENOENT || error == ENOTDIR)
      throw IoError(fmt::format("{}: cannot open for writing: the folder '{}' does not exist",
                                name_, folder.string()));
    throw IoError(fmt::format("{}: cannot open for writing (creating a file in '{}'): {}", name_,
                              folder.string(), why(error)));
  }
  slot_ = register_temporary(temporary_);
  if (exists) (void)::fchmod(fd_, st.st_mode & 07777);  // keep the target's permissions
}

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
  unregister_temporary(slot_);
  slot_ = -1;
}

void AtomicFile::fail(const std::string& what, int error) {
  discard();
  throw IoError(fmt::format("{}: {}: {}", name_, what, why(error)));
}

void AtomicFile::write(std::string_view text) {
  if (fd_ < 0) throw IoError(fmt::format("{}: write after the file was closed", name_));
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), std::min<std::size_t>(text.size(), 1 << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write error", n < 0 ? errno : EIO);
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw IoError(fmt::format("{}: committed twice", name_));
  if (!temporary_.empty() && ::fsync(fd_) != 0) fail("write error (flushing to the disk)", errno);
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) fail("write error on close", errno);
  if (temporary_.empty()) return;  // written in place
  if (::rename(temporary_.c_str(), target_.c_str()) != 0)
    fail(fmt::format("cannot replace it with the file written ('{}')", temporary_.string()), errno);
  temporary_.clear();
  unregister_temporary(slot_);
  slot_ = -1;
}

void write_file_atomically(const fs::path& target, std::string_view text) {
  AtomicFile file(target);
  file.write(text);
  file.commit();
}

void check_writable(const fs::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    // A device or a pipe: opening a pipe would wait for its reader.
    if (::access(target.c_str(), W_OK) != 0)
      throw IoError(fmt::format("{}: cannot open for writing: {}", target.string(), why(errno)));
    return;
  }
  AtomicFile probe(target);  // created, then removed unused
}

}  // namespace spx::detail
