#include "process_environment.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tessera_apps {
namespace {

// Makes the variable as wanted; returns a description of the change, or "" if there was none.
std::string apply(const EnvironmentChange& change) {
    const auto& [name, wanted] = change;
    const char* current = std::getenv(name.c_str());
    if (!wanted) {
        if (!current) return "";
        std::string description = "unset " + name + " (was " + current + ")";
        unsetenv(name.c_str());
        return description;
    }
    if (current && *wanted == current) return "";
    std::string description = name + "=" + *wanted + (current ? std::string(" (was ") + current + ")" : "");
    setenv(name.c_str(), wanted->c_str(), 1);
    return description;
}

}  // namespace

void rerun_with_environment(const char* program, char** argv, const std::vector<EnvironmentChange>& changes) {
    std::string described;
    for (const EnvironmentChange& change : changes) {
        const std::string description = apply(change);
        if (!description.empty()) described += (described.empty() ? "" : ", ") + description;
    }
    if (described.empty()) return;
    std::fprintf(stderr, "%s: starting again in a fresh process with %s\n", program, described.c_str());
    std::fflush(nullptr);
    // /proc/self/exe rather than argv[0]: the program as it is, however it was found on the PATH.
    execv("/proc/self/exe", argv);
    std::fprintf(stderr, "%s: could not start again: %s\n", program, std::strerror(errno));
    std::exit(1);
}

}  // namespace tessera_apps
