#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "common.hpp"
#include "matrices.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::test {

/// Every `.mtx` and `.mtx.gz` file of the real-matrix folder, in name order,
/// as CSR (symmetry expanded, duplicates summed); named by the file stem. The
/// folder is $SPX_REAL_MATRICES when set (a copy of the tree on another
/// machine), else the path compiled in. With SPX_TEST_SMALL=1 (sanitizer
/// runs) only the five smallest files are read.
template <Value T, Index I>
std::vector<TestMatrix<T, I>> real_matrices() {
  namespace fs = std::filesystem;
  const fs::path dir = real_matrix_dir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::printf("[  INFO    ] no real matrices: %s does not exist\n", dir.c_str());
    return {};
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".mtx") || name.ends_with(".mtx.gz")) files.push_back(entry.path());
  }
  if (const char* small = std::getenv("SPX_TEST_SMALL"); small != nullptr && small[0] == '1') {
    std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
      return fs::file_size(a) < fs::file_size(b);
    });
    files.resize(std::min<std::size_t>(files.size(), 5));
  }
  std::sort(files.begin(), files.end());
  std::vector<TestMatrix<T, I>> out;
  for (const auto& file : files) {
    std::string name = file.filename().string();
    name = name.substr(0, name.find(".mtx"));
    out.push_back({name, io::read_csr<T, I>(file)});
  }
  return out;
}

#define SPX_INST(T, I) template std::vector<TestMatrix<T, I>> real_matrices<T, I>();
SPX_INST(float, std::int32_t)
SPX_INST(float, std::int64_t)
SPX_INST(double, std::int32_t)
SPX_INST(double, std::int64_t)
#undef SPX_INST

}  // namespace spx::test
