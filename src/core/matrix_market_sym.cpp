// Matrix Market files into SYM_CSR without expanding them: a `symmetric`
// file's lower triangle becomes the SYM_CSR as it is; a `general` file goes
// through to_sym_csr.
#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::io {
namespace {

MmReadOptions unexpanded(MmReadOptions options) {
  options.expand_symmetry = false;
  return options;
}

template <Value T, Index I>
SymCsr<T, I> sym_from_coo(const Coo<T, I>& coo, const MmHeader& header, std::string_view name) {
  if (header.symmetry == MmSymmetry::SkewSymmetric)
    throw Unsupported(fmt::format(
        "{}: a skew-symmetric file cannot be held by SYM_CSR, which stores symmetric matrices "
        "(read it with read_csr)",
        name));
  const Csr<T, I> A = to_csr(coo);  // sorted, duplicates summed
  if (header.symmetry == MmSymmetry::General) return to_sym_csr(A);
  // Symmetric: the reader returned the lower triangle with the diagonal.
  return SymCsr<T, I>(A.rows(), A.row_ptr().to(Space::Host), A.col_idx().to(Space::Host),
                      A.values().to(Space::Host), Check::Trusted);
}

}  // namespace

MmReadOptions sym_read_options() {
  MmReadOptions o;
  o.lower_triangle_only = true;
  return o;
}

template <Value T, Index I>
SymCsr<T, I> read_sym_csr(const std::filesystem::path& file, const MmReadOptions& options) {
  MmHeader header;
  const Coo<T, I> coo = read_coo<T, I>(file, unexpanded(options), &header);
  return sym_from_coo(coo, header, file.string());
}

template <Value T, Index I>
SymCsr<T, I> parse_sym_csr(std::string_view text, std::string_view name,
                           const MmReadOptions& options) {
  MmHeader header;
  const Coo<T, I> coo = parse_coo<T, I>(text, name, unexpanded(options), &header);
  return sym_from_coo(coo, header, name);
}

#define SPX_INST(T, I)                                                                          \
  template SymCsr<T, I> read_sym_csr<T, I>(const std::filesystem::path&, const MmReadOptions&); \
  template SymCsr<T, I> parse_sym_csr<T, I>(std::string_view, std::string_view,                 \
                                            const MmReadOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::io
