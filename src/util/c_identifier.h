#pragma once
// Whether a name can stand in C source as it is: the names of generators and of their members.

#include <algorithm>
#include <cctype>
#include <string>

namespace tessera::util {

inline bool is_c_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace tessera::util
