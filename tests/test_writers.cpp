// Files written whole or not at all (src/core/atomic_file.hpp): the Matrix
// Market writer and the AtomicFile every writer uses, on failures a test can
// cause as root too: a file size limit (RLIMIT_FSIZE, as a full disk: EFBIG),
// /dev/full, a folder that does not exist, a target that is a folder.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common.hpp"
#include "core/atomic_file.hpp"
#include "files.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::test {
namespace {

namespace fs = std::filesystem;
using spx::detail::AtomicFile;

/// A tridiagonal n x n matrix (about 3n entries, ~80 bytes of text a row).
Csr<double, std::int32_t> tridiagonal(std::int32_t n) {
  std::vector<std::int32_t> ptr{0}, col;
  std::vector<double> val;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
      col.push_back(j);
      val.push_back(1.0 / (i + 2.0 * j + 3.0));
    }
    ptr.push_back(static_cast<std::int32_t>(col.size()));
  }
  return Csr<double, std::int32_t>(n, n, Array<std::int32_t>(ptr), Array<std::int32_t>(col),
                                   Array<double>(val));
}

/// While alive, files this process writes are capped at `bytes` (writes past
/// it fail with EFBIG, SIGXFSZ ignored): a full disk that root cannot bypass.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit r = old_;
    r.rlim_cur = bytes;
    ok_ = ::setrlimit(RLIMIT_FSIZE, &r) == 0;
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  bool ok() const { return ok_; }

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
  bool ok_ = false;
};

class Writers : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("spx_writers_" + std::to_string(::getpid()) + "_" + std::to_string(fresh_seed()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(Writers, MatrixMarketWriteThatFailsKeepsTheOldFile) {
  const auto A = tridiagonal(2000);  // ~150 kB of text
  const auto coo = to_coo(A);
  const std::string old = "the old content\n";
  for (const std::string name : {"m.mtx", "m.mtx.gz"}) {
    for (const bool as_coo : {false, true}) {
      SCOPED_TRACE(name + (as_coo ? " (coo)" : " (csr)"));
      const fs::path file = dir_ / name;
      std::ofstream(file) << old;
      {
        FileSizeLimit limit(4096);
        ASSERT_TRUE(limit.ok());
        const std::string message = message_of<IoError>([&] {
          if (as_coo)
            io::write(file, coo);
          else
            io::write(file, A);
        });
        EXPECT_NE(message.find(file.string() + ": write error"), std::string::npos) << message;
        EXPECT_NE(message.find("File too large"), std::string::npos) << message;
      }
      EXPECT_EQ(slurp(file), old);
      EXPECT_EQ(listing(dir_), std::vector<std::string>{name}) << "a temporary is left";
      // Without the limit the same call replaces the file with the matrix.
      if (as_coo)
        io::write(file, coo);
      else
        io::write(file, A);
      const auto back = io::read_csr<double, std::int32_t>(file);
      EXPECT_EQ(back.values().to_vector(), A.values().to_vector());
      EXPECT_EQ(listing(dir_), std::vector<std::string>{name});
      fs::remove(file);
    }
  }
}

TEST_F(Writers, WriteErrorsOfDevicesAreReported) {
  const auto A = tridiagonal(2000);
  const std::string message = message_of<IoError>([&] { io::write("/dev/full", A); });
  EXPECT_NE(message.find("/dev/full: write error: No space left on device"), std::string::npos)
      << message;
  const std::string gz = message_of<IoError>([&] {
    fs::create_symlink("/dev/full", dir_ / "full.mtx.gz");
    io::write(dir_ / "full.mtx.gz", A);
  });
  EXPECT_NE(gz.find("full.mtx.gz: write error"), std::string::npos) << gz;
  io::write("/dev/null", A);  // a device is written in place
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST_F(Writers, UnwritableTargetsAreNamed) {
  const auto A = tridiagonal(10);
  const std::string missing = message_of<IoError>([&] { io::write(dir_ / "no" / "m.mtx", A); });
  EXPECT_NE(missing.find("m.mtx: cannot open for writing: the folder"), std::string::npos)
      << missing;
  EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;
  const std::string folder = message_of<IoError>([&] { io::write(dir_, A); });
  EXPECT_NE(folder.find("it is a folder"), std::string::npos) << folder;
  EXPECT_NE(message_of<IoError>([&] { io::write("", A); }).find("empty name"), std::string::npos);
  EXPECT_NE(message_of<IoError>([&] {
              spx::detail::check_writable(dir_ / "a" / "b.json");
            }).find("does not exist"),
            std::string::npos);
  spx::detail::check_writable(dir_ / "fine.json");  // possible: nothing is left
  EXPECT_TRUE(listing(dir_).empty());
}

TEST_F(Writers, AtomicFileReplacesOnlyOnCommit) {
  const fs::path file = dir_ / "out.txt";
  std::ofstream(file) << "old";
  ::chmod(file.c_str(), 0640);
  {
    AtomicFile f(file);
    f.write("new text");
    EXPECT_EQ(slurp(file), "old");  // not yet
    EXPECT_EQ(listing(dir_).size(), 2u);
  }  // destroyed without commit: the temporary goes, the target stays
  EXPECT_EQ(slurp(file), "old");
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"out.txt"});
  {
    AtomicFile f(file);
    f.write("new text");
    f.commit();
  }
  EXPECT_EQ(slurp(file), "new text");
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"out.txt"});
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "the target's permissions are kept";

  // A link: the file it names is replaced, the link stays a link.
  fs::create_symlink("out.txt", dir_ / "link.txt");
  spx::detail::write_file_atomically(dir_ / "link.txt", "through the link");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.txt"));
  EXPECT_EQ(slurp(file), "through the link");
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"link.txt", "out.txt"}));

  // An exception between the writes: nothing changes.
  EXPECT_THROW(
      {
        AtomicFile f(file);
        f.write("half");
        throw std::runtime_error("interrupted");
      },
      std::runtime_error);
  EXPECT_EQ(slurp(file), "through the link");
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"link.txt", "out.txt"}));
}

TEST_F(Writers, RemoveTemporariesRemovesThoseNotCommitted) {
  const fs::path file = dir_ / "out.txt";
  AtomicFile a(file), b(dir_ / "other.txt");
  a.write("x");
  EXPECT_EQ(listing(dir_).size(), 2u);
  spx::detail::remove_temporaries();  // what the CLI's signal handler calls
  EXPECT_TRUE(listing(dir_).empty());
}

}  // namespace
}  // namespace spx::test
