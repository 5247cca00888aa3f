// Small helpers of the tests that write files: a file's bytes, a folder's
// names.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace spx::test {

/// The whole content of `file` ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& file) {
  std::ifstream f(file, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The names in `dir` (files and folders), sorted.
inline std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// A fresh directory under the system temp dir, named after `prefix`, the
/// process and `unique`, removed with its contents.
class TempDir {
 public:
  TempDir(const std::string& prefix, std::uint64_t unique)
      : path_(std::filesystem::temp_directory_path() /
              (prefix + std::to_string(::getpid()) + "_" + std::to_string(unique))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace spx::test
