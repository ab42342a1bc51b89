#pragma once
// Expr: a handle to an immutable expression tree. Built from constants, Vars, Func calls and the
// operators in <tessera/operators.h>.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "tessera/type.h"

namespace tessera {

namespace ir {
struct ExprNode;
}

class Expr {
public:
    Expr() = default;
    explicit Expr(std::shared_ptr<const ir::ExprNode> node) : node_(std::move(node)) {}

    Expr(int8_t x);
    Expr(int16_t x);
    Expr(int32_t x);
    Expr(int64_t x);
    Expr(uint8_t x);
    Expr(uint16_t x);
    Expr(uint32_t x);
    Expr(uint64_t x);
    Expr(float x);
    Expr(double x);
    Expr(const std::string& s);  // a string constant, for print()
    Expr(const char* s);

    bool defined() const { return node_ != nullptr; }
    Type type() const;
    const ir::ExprNode* get() const { return node_.get(); }
    const std::shared_ptr<const ir::ExprNode>& node() const { return node_; }
    bool same_as(const Expr& other) const { return node_ == other.node_; }

    // The node as a concrete IR class, or null: `if (const ir::Add* a = e.as<ir::Add>())`.
    template <typename T>
    const T* as() const {
        return node_ && node_kind() == T::static_kind ? static_cast<const T*>(node_.get()) : nullptr;
    }

private:
    int node_kind() const;
    std::shared_ptr<const ir::ExprNode> node_;
};

// Expressions print in the readable form of the IR printer.
std::ostream& operator<<(std::ostream& out, const Expr& e);
std::ostream& operator<<(std::ostream& out, const Type& t);

}  // namespace tessera
