#pragma once
// Short builders of Int(32) loop nests, for the tests of lowering passes that build them by hand.

#include <cstdint>
#include <string>
#include <utility>

#include "ir/ir_util.h"
#include "ir/stmt.h"

namespace tessera::test {

inline ir::Expr var(const std::string& name) { return ir::int_var(name); }
inline ir::Expr i32(int64_t v) { return ir::make_const(Int(32), v); }
inline ir::Expr add(ir::Expr a, ir::Expr b) { return ir::Add::make(std::move(a), std::move(b)); }
inline ir::Expr mul(ir::Expr a, ir::Expr b) { return ir::Mul::make(std::move(a), std::move(b)); }
inline ir::Expr load(const std::string& buffer, ir::Expr index) {
    return ir::Load::make(Int(32), buffer, std::move(index));
}
inline ir::Stmt loop(const std::string& name, ir::Expr min, ir::Expr extent, ir::Stmt body,
                     ir::ForKind kind = ir::ForKind::Serial) {
    return ir::For::make(name, std::move(min), std::move(extent), kind, std::move(body));
}

}  // namespace tessera::test
