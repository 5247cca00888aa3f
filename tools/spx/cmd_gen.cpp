#include "commands.hpp"
#include "spx/core/error.hpp"

namespace spx::cli {

void add_gen(CLI::App& app) {
  auto* cmd = app.add_subcommand("gen", "(not yet implemented)");
  cmd->callback([] { throw Unsupported("spx gen is not implemented yet"); });
}

}  // namespace spx::cli
