#include "commands.hpp"
#include "spx/core/error.hpp"

namespace spx::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "(not yet implemented)");
  cmd->callback([] { throw Unsupported("spx info is not implemented yet"); });
}

}  // namespace spx::cli
