// The one pipeline behind every operation (spmv, spmm, batch_spmv; the plan
// and the distributed product call the same): the operation validates its
// operands, then
//
//   resolve Auto → find the kernel → trivial cases → can_run → run
//
// runs here, the same way for all, and fills the RunInfo the same way. An
// operation describes itself with a small struct (VectorCall in ops.cpp,
// SpmmCall in ops_spmm.cpp), a CallBase plus its operands and:
//
//   static constexpr std::string_view name = "spmv", noun = "matrix", kind = "";
//   Algorithm choose() const;                    // the Auto rule
//   const Kernel* find(Algorithm) const;         // nullptr: none registered
//   bool output_empty() const;                   // nothing to write
//   void scale_output() const;                   // out = beta*out
//   std::string can_run(const Kernel&) const;    // empty when it can
//   void run(const Kernel&) const;
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/out_of_memory.hpp"
#include "spx/core/error.hpp"
#include "spx/ops.hpp"
#include "spx/registry.hpp"

namespace spx::detail {

/// What every operation's call holds besides its operands.
template <Value T, Index I>
struct CallBase {
  Format format;
  Backend backend;
  const Registry<T, I>& registry;
  T alpha, beta;
  std::int64_t nnz;  ///< of the matrix or batch
  ExecContext ctx;

  /// alpha = 0 or no nonzeros: out = beta*out.
  bool nothing_to_multiply() const { return alpha == T{0} || nnz == 0; }
};

template <class Call>
RunInfo dispatch(const Call& call, Algorithm requested) {
  // Any allocation failure on the way (a kernel's scratch, a cache entry)
  // leaves as OutOfMemory naming the operation.
  return name_allocation_failures(Call::name, [&] {
    // The kernel the request resolves to, also for trivial cases, so that a
    // bad request fails the same way whatever the data.
    RunInfo info{call.format, requested, call.backend, true, false};
    if (info.algorithm == Algorithm::Auto) info.algorithm = call.choose();
    const auto* kernel = call.find(info.algorithm);
    if (kernel == nullptr)
      throw Unsupported(fmt::format("{}: no {}{} kernel '{}' on the {} backend", Call::name,
                                    Call::kind, to_string(call.format), to_string(info.algorithm),
                                    to_string(call.backend)));
    info.deterministic = kernel->info.deterministic;

    // Degenerate cases: no output, or nothing to multiply (out = beta*out).
    if (call.output_empty() || call.nothing_to_multiply()) {
      info.trivial = true;
      info.deterministic = true;
      if (!call.output_empty()) call.scale_output();
      return info;
    }
    if (std::string reason = call.can_run(*kernel); !reason.empty())
      throw Unsupported(fmt::format("{}: {}{} kernel '{}' cannot run on this {}: {}", Call::name,
                                    Call::kind, to_string(call.format), to_string(info.algorithm),
                                    Call::noun, reason));
    call.run(*kernel);
    return info;
  });
}

/// The size in bytes of operand `name`, `elements` elements of `element_bytes`
/// from `data`; throws InvalidInput when it overflows or when the range would
/// run past the end of the address space (a leading dimension or a length no
/// memory can hold).
std::size_t operand_bytes(std::string_view op, std::string_view name, const void* data,
                          std::int64_t elements, std::size_t element_bytes);

/// Throws InvalidInput when the byte ranges of two operands overlap, naming
/// both operands and their ranges.
void check_no_overlap(std::string_view op, std::string_view a_name, const void* a,
                      std::size_t a_bytes, std::string_view b_name, const void* b,
                      std::size_t b_bytes);

}  // namespace spx::detail
