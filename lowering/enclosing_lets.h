#pragma once
// The lets and loops around the statement a pass is visiting, and what an expression is in terms
// of what no let defines. Lowering writes extents and indices in terms of lets (extent = max - min
// + 1, with min and max lets of one loop variable) that cancel only once substituted.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/stmt.h"

namespace tessera::lowering {

class EnclosingLets {
public:
    // A let binds its value; a loop (value undefined) binds a name that has no value to substitute.
    void push(const std::string& name, const ir::Expr& value) { bindings_[name].push_back(value); }
    void pop(const std::string& name) { bindings_[name].pop_back(); }
    bool binds(const std::string& name) const;

    // e with the lets expanded, simplified; nothing where a name in it is bound more than once
    // (an inner binding could capture what an outer let's value means).
    std::optional<ir::Expr> expanded(const ir::Expr& e) const;
    // The value of e when the lets make it a constant.
    std::optional<int64_t> constant(const ir::Expr& e) const;

private:
    std::map<std::string, std::vector<ir::Expr>> bindings_;
};

}  // namespace tessera::lowering
