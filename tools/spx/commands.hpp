// The subcommands of `spx`, one file each.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace spx::cli {

// ---- numeric and list options ------------------------------------------------
// Every subcommand checks its options with these validators before it starts:
// the option's text must be a number in range (never NaN or infinite) or a
// list without empty items. CLI11 prefixes the message with the option's name
// ("--reps: must be an integer in 1..1000000, not '0'") and exits non-zero.

/// An integer in [lo, hi], written in decimal (no sign for lo >= 0).
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi);
/// A finite number in the interval from lo to hi; `open_lo` / `open_hi`
/// exclude the end.
CLI::Validator number_in(double lo, double hi, bool open_lo = false, bool open_hi = false);
/// A finite number > 0.
inline CLI::Validator positive_number() {
  return number_in(0, std::numeric_limits<double>::max(), true);
}
/// A seed: an integer in 0..2^64-1 written without a sign (every seed option,
/// as the generator specs of `spx gen` read them).
CLI::Validator seed_value();
/// A comma-separated list: at least one item, none empty, each passing `item`.
CLI::Validator list_of(CLI::Validator item, const std::string& what);
/// The items of a comma-separated list, blanks around them removed (the
/// option's validator has rejected empty items).
std::vector<std::string> split_list(const std::string& s);

/// The value and index types a subcommand runs with: --precision f32|f64 and
/// --index i32|i64.
struct TypeOptions {
  std::string precision = "f64";
  std::string index = "i32";

  /// Adds --precision (described by `precision_help`) and --index to `cmd`.
  void add_to(CLI::App* cmd, const std::string& precision_help) {
    cmd->add_option("--precision", precision, precision_help)
        ->check(CLI::IsMember({"f32", "f64"}))
        ->capture_default_str();
    cmd->add_option("--index", index, "Index type: i32 or i64")
        ->check(CLI::IsMember({"i32", "i64"}))
        ->capture_default_str();
  }
  /// Runs f.template operator()<T, I>() with the chosen types.
  template <class F>
  void run(F&& f) const {
    const bool f32 = precision == "f32", i64 = index == "i64";
    if (f32 && i64)
      f.template operator()<float, std::int64_t>();
    else if (f32)
      f.template operator()<float, std::int32_t>();
    else if (i64)
      f.template operator()<double, std::int64_t>();
    else
      f.template operator()<double, std::int32_t>();
  }
};

void add_info(CLI::App& app);
void add_gen(CLI::App& app);
void add_convert(CLI::App& app);
void add_bench(CLI::App& app);
void add_advise(CLI::App& app);

}  // namespace spx::cli
