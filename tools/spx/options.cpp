// The validators of numeric and list options shared by every subcommand
// (commands.hpp).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"

namespace spx::cli {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// The list's items, empty ones kept (so that they can be refused).
std::vector<std::string> items_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(',', start);
    out.push_back(trimmed(s.substr(start, end == std::string::npos ? end : end - start)));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

}  // namespace

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  const std::string range = fmt::format("{}..{}", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* b = text.data();
        const char* e = b + text.size();
        const auto [end, ec] = std::from_chars(b, e, v);
        if (text.empty() || end != e || ec == std::errc::invalid_argument)
          return fmt::format("'{}' is not an integer (expected {})", text, range);
        if (ec == std::errc::result_out_of_range || v < lo || v > hi)
          return fmt::format("{} is outside {}", text, range);
        return {};
      },
      fmt::format("INT in {}", range));
}

CLI::Validator number_in(double lo, double hi, bool open_lo, bool open_hi) {
  const bool unbounded = hi == std::numeric_limits<double>::max();
  const std::string range = unbounded
                                ? fmt::format("a finite number {} {}", open_lo ? ">" : ">=", lo)
                                : fmt::format("a finite number in {}{}, {}{}", open_lo ? "(" : "[",
                                              lo, hi, open_hi ? ")" : "]");
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        const char* b = text.data();
        const char* e = b + text.size();
        const auto [end, ec] = std::from_chars(b, e, v);
        if (text.empty() || end != e || ec == std::errc::invalid_argument)
          return fmt::format("'{}' is not a number (expected {})", text, range);
        if (ec == std::errc::result_out_of_range || !std::isfinite(v) || v < lo || v > hi ||
            (open_lo && v == lo) || (open_hi && v == hi))
          return fmt::format("{} is not {}", text, range);
        return {};
      },
      unbounded ? std::string("POSITIVE") : "NUM");
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const char* b = text.data();
        const char* e = b + text.size();
        const auto [end, ec] = std::from_chars(b, e, v);
        if (text.empty() || end != e || ec != std::errc())
          return fmt::format("'{}' is not a seed (an integer in 0..{}, written without a sign)",
                             text, UINT64_MAX);
        return {};
      },
      "SEED");
}

CLI::Validator list_of(CLI::Validator item, const std::string& what) {
  return CLI::Validator(
      [item, what](std::string& text) -> std::string {
        const std::vector<std::string> items = items_of(text);
        for (std::size_t i = 0; i < items.size(); ++i) {
          std::string one = items[i];
          if (one.empty())
            return text.find_first_not_of(" \t,") == std::string::npos
                       ? fmt::format("empty list (expected {})", what)
                       : fmt::format("'{}': item {} is empty (expected {})", text, i + 1, what);
          if (std::string why = item(one); !why.empty()) return fmt::format("'{}': {}", text, why);
        }
        return {};
      },
      "LIST");
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  for (std::string& item : items_of(s))
    if (!item.empty()) out.push_back(std::move(item));
  return out;
}

}  // namespace spx::cli
