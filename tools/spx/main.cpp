// spx: the command-line tool. Errors print one line and exit non-zero.
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "core/atomic_file.hpp"
#include "spx/core/error.hpp"

namespace {

/// A signal that ends the program (Ctrl-C, kill, a closed pipe, a file size
/// limit) first removes the temporaries of files being written, so that the
/// targets keep their old content and nothing is left beside them, then ends
/// it as the signal would have.
void on_fatal_signal(int sig) {
  spx::detail::remove_temporaries();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// The names of the subcommands, for messages: "info, gen, convert, bench".
std::string command_list(const CLI::App& app) {
  std::string s;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    s += (s.empty() ? "" : ", ") + sub->get_name();
  return s;
}

/// "spx" or "spx COMMAND", for messages.
std::string command_name(const CLI::App& app) {
  const std::vector<CLI::App*> used = app.get_subcommands();
  return used.empty() ? "spx" : "spx " + used.front()->get_name();
}

/// CLI11's errors (a value refused by an option's check, a missing option) as
/// the tool's own: "spx: error: --reps: 0 is outside 1..1000000".
std::string failure_message(const CLI::App* app, const CLI::Error& e) {
  const std::string command = command_name(*app);
  return fmt::format("spx: error: {}\nRun '{} --help' for its {}.\n", e.what(), command,
                     command == "spx" ? "commands and options" : "options");
}

/// What CLI11 could not place: an unknown option, an unknown command, or an
/// argument a command does not take; one line each.
int report_extras(const CLI::App& app, const CLI::ExtrasError& e) {
  const std::vector<CLI::App*> used = app.get_subcommands();
  const CLI::App* where = used.empty() ? &app : used.front();
  const std::vector<std::string> extras = where->remaining();
  if (extras.empty()) {
    fmt::print(stderr, "spx: error: {}\n", e.what());
    return e.get_exit_code();
  }
  const std::string& first = extras.front();
  const std::string command = command_name(app);
  if (first.size() > 1 && first[0] == '-')
    fmt::print(stderr, "spx: error: unknown option '{}' for '{}'\n", first, command);
  else if (used.empty())
    fmt::print(stderr, "spx: error: unknown command '{}' (commands: {})\n", first,
               command_list(app));
  else
    fmt::print(stderr, "spx: error: '{}' takes no argument '{}'\n", command, first);
  fmt::print(stderr, "Run '{} --help' for its {}.\n", command,
             used.empty() ? "commands and options" : "options");
  return e.get_exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  // A signal the caller ignores (nohup, `trap '' XFSZ`) stays ignored.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ})
    if (std::signal(sig, on_fatal_signal) == SIG_IGN) std::signal(sig, SIG_IGN);
  CLI::App app{"SpX: sparse matrix products (SpMV, SpMM, batched SpMV) on GPUs and CPUs"};
  app.set_version_flag("--version", SPX_VERSION);
  // At most one command; none is reported after parsing, so that an unknown
  // option or command is named instead of "a subcommand is required".
  app.require_subcommand(0, 1);
  app.footer("Run 'spx COMMAND --help' for the options of a command.");
  app.failure_message(failure_message);
  spx::cli::add_info(app);
  spx::cli::add_gen(app);
  spx::cli::add_convert(app);
  spx::cli::add_bench(app);
  spx::cli::add_advise(app);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) {
      fmt::print(stderr, "spx: error: a command is required (commands: {})\n", command_list(app));
      fmt::print(stderr, "Run 'spx --help' for its commands and options.\n");
      return 1;
    }
  } catch (const CLI::ExtrasError& e) {
    return report_extras(app, e);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const spx::Error& e) {
    fmt::print(stderr, "spx: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "spx: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
