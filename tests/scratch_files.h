#pragma once
// Files the tests write and read back: a fresh scratch directory per test case, and a whole file
// as a string.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace scratch_files {

// An empty directory named after the test case and this process, in the system's temporary
// directory: ctest runs the cases of one program in parallel, each in its own process, and two
// cases that use the same name must not empty each other's directory.
inline std::filesystem::path fresh_dir(const std::string& name) {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("tessera_test_" + name + "_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace scratch_files
