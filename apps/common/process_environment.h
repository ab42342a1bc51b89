#pragma once
// Some libraries read their environment once, when the dynamic loader runs their constructors,
// before main(): OpenBLAS reads OPENBLAS_CORETYPE there, and OpenMP (which oneDNN runs on)
// OMP_NUM_THREADS. A program that must change such a variable has to start over in a fresh
// process with the new environment.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera_apps {

// A variable and its wanted value; no value means the variable must be absent.
using EnvironmentChange = std::pair<std::string, std::optional<std::string>>;

// Applies the changes to this process's environment. If any variable was not already as wanted,
// replaces this process by the same program with the same arguments (argv as main() got it) and
// the new environment, and does not return; `program` names it in the message this prints to
// stderr first, which lists the changes. Returns when nothing had to change. Exits with status 1
// if the program cannot be started again.
void rerun_with_environment(const char* program, char** argv, const std::vector<EnvironmentChange>& changes);

}  // namespace tessera_apps
