// Uses the installed SpX: a CSR view over this program's own arrays (no
// copy), a generated stencil, conversion to SELL, SpMV on the CPU, and the
// GPU when there is one; every result is checked against a plain loop.
#include <cmath>
#include <cstdio>
#include <vector>

#include <spx/spx.hpp>

namespace {

template <class M>
int check(const char* what, const M& A, const spx::Csr<double, int>& ref) {
  const auto m = static_cast<std::size_t>(ref.rows()), n = static_cast<std::size_t>(ref.cols());
  std::vector<double> x(n), y(m, std::nan("")), want(m, 0.0);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = 1.0 + 0.25 * static_cast<double>(j % 7);
  for (std::size_t i = 0; i < m; ++i)
    for (int k = ref.row_ptr()[i]; k < ref.row_ptr()[i + 1]; ++k)
      want[i] += ref.values()[k] * x[static_cast<std::size_t>(ref.col_idx()[k])];
  const spx::RunInfo ran = spx::spmv(1.0, A, x, 0.0, y);
  for (std::size_t i = 0; i < m; ++i) {
    if (!(std::abs(y[i] - want[i]) <= 1e-12 * (1.0 + std::abs(want[i])))) {
      std::printf("FAIL %s: y[%zu] = %g, expected %g\n", what, i, y[i], want[i]);
      return 1;
    }
  }
  std::printf("ok   %s (%s, %s)\n", what, std::string(spx::to_string(ran.format)).c_str(),
              std::string(spx::to_string(ran.algorithm)).c_str());
  return 0;
}

}  // namespace

int main() {
  const auto A = spx::generate<double, int>(spx::parse_gen_spec("stencil2d:n=64,points=5"));
  int failed = check("generated CSR", A, A);
  failed += check("SELL", spx::to_sell(A), A);
  // A CSR view over this program's own arrays: no copy, and SpX never frees them.
  const std::vector<int> row_ptr = A.row_ptr().to_vector(), col_idx = A.col_idx().to_vector();
  const std::vector<double> values = A.values().to_vector();
  const auto V = spx::Csr<double, int>::view(A.rows(), A.cols(), row_ptr, col_idx, values);
  if (V.values().data() != values.data() || V.col_idx().data() != col_idx.data()) {
    std::printf("FAIL CSR view: the arrays were copied\n");
    ++failed;
  }
  failed += check("CSR view", V, A);
  std::printf("%s\n", failed == 0 ? "spx_consumer: all checks passed" : "spx_consumer: FAILED");
  return failed == 0 ? 0 : 1;
}
