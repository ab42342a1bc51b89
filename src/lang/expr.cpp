// The constructors of Expr from C++ constants.

#include "tessera/expr.h"
#include "ir/expr_nodes.h"

namespace tessera {

Expr::Expr(int8_t x) : Expr(ir::IntImm::make(Int(8), x)) {}
Expr::Expr(int16_t x) : Expr(ir::IntImm::make(Int(16), x)) {}
Expr::Expr(int32_t x) : Expr(ir::IntImm::make(Int(32), x)) {}
Expr::Expr(int64_t x) : Expr(ir::IntImm::make(Int(64), x)) {}
Expr::Expr(uint8_t x) : Expr(ir::UIntImm::make(UInt(8), x)) {}
Expr::Expr(uint16_t x) : Expr(ir::UIntImm::make(UInt(16), x)) {}
Expr::Expr(uint32_t x) : Expr(ir::UIntImm::make(UInt(32), x)) {}
Expr::Expr(uint64_t x) : Expr(ir::UIntImm::make(UInt(64), x)) {}
Expr::Expr(float x) : Expr(ir::FloatImm::make(Float(32), x)) {}
Expr::Expr(double x) : Expr(ir::FloatImm::make(Float(64), x)) {}
Expr::Expr(const std::string& s) : Expr(ir::StringImm::make(s)) {}
Expr::Expr(const char* s) : Expr(ir::StringImm::make(s)) {}

}  // namespace tessera
