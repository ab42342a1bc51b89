#pragma once
// A readable, stable text form of IR. Tests may compare it.

#include <ostream>
#include <string>

#include "ir/stmt.h"

namespace tessera::ir {

using tessera::operator<<;
std::ostream& operator<<(std::ostream& out, const Stmt& s);
std::string to_string(const Expr& e);
std::string to_string(const Stmt& s);

}  // namespace tessera::ir
