#include "lowering/enclosing_lets.h"

#include "ir/interval_ends.h"
#include "ir/ir_util.h"
#include "ir/simplify.h"
#include "ir/substitute.h"

namespace tessera::lowering {
namespace {

// How deep lets are followed, and how large an expansion may grow.
constexpr int kMaxLetDepth = 16;
constexpr int kMaxExpandedSize = 1024;

}  // namespace

bool EnclosingLets::binds(const std::string& name) const {
    auto it = bindings_.find(name);
    return it != bindings_.end() && !it->second.empty();
}

std::optional<ir::Expr> EnclosingLets::expanded(const ir::Expr& e) const {
    ir::Expr result = e;
    for (int depth = 0; depth < kMaxLetDepth; depth++) {
        std::map<std::string, ir::Expr> known;
        for (const std::string& name : ir::variables_read(result)) {
            auto it = bindings_.find(name);
            if (it == bindings_.end() || it->second.empty()) continue;
            if (it->second.size() > 1) return std::nullopt;
            if (it->second.back().defined()) known[name] = it->second.back();
        }
        if (known.empty()) break;
        result = ir::substitute(known, result);
        // Past this size the lets are not the short index arithmetic this is for, and simplifying
        // them would cost more than it could find.
        if (ir::interval_ends::larger_than(result, kMaxExpandedSize)) return std::nullopt;
    }
    return ir::simplify(result);
}

std::optional<int64_t> EnclosingLets::constant(const ir::Expr& e) const {
    if (std::optional<int64_t> c = ir::as_const_int(e)) return c;
    std::optional<ir::Expr> value = expanded(e);
    return value ? ir::as_const_int(*value) : std::nullopt;
}

}  // namespace tessera::lowering
