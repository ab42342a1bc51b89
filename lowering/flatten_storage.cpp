#include "lowering/flatten_storage.h"

#include <algorithm>
#include <map>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "lowering/names.h"
#include "tessera/runtime.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

using ir::Expr;
using ir::Stmt;

// How to find element (x0, x1, ...) of a flat buffer: sum over d of (xd - min[d]) * stride[d].
struct Layout {
    std::vector<Expr> mins, strides;
};

Expr flat_index(const Layout& layout, const std::vector<Expr>& args) {
    Expr index = ir::make_zero(Int(32));
    for (size_t d = 0; d < args.size(); d++) {
        index =
            ir::Add::make(index, ir::Mul::make(ir::Sub::make(args[d], layout.mins[d]), layout.strides[d]));
    }
    return index;
}

Layout argument_layout(const std::string& buffer, int dims) {
    Layout l;
    for (int d = 0; d < dims; d++) {
        l.mins.push_back(ir::int_var(buffer_min(buffer, d)));
        l.strides.push_back(ir::int_var(buffer_stride(buffer, d)));
    }
    return l;
}

// Dense storage of a Func's realized region, its dimensions laid out innermost first in the order
// reorder_storage() gave (the order of its arguments by default).
Layout dense_layout(const lang::FunctionContents& f, const ir::Region& bounds) {
    const int dims = f.dimensions();
    std::vector<int> order;
    for (const std::string& v : f.schedule.storage_order)
        order.push_back(int(std::find(f.pure_args.begin(), f.pure_args.end(), v) - f.pure_args.begin()));
    if (order.empty()) {
        for (int d = 0; d < dims; d++) order.push_back(d);
    }
    Layout l;
    l.mins.resize(dims);
    l.strides.resize(dims);
    Expr stride = ir::make_one(Int(32));
    for (int d : order) {
        l.mins[d] = bounds[d].min;
        l.strides[d] = stride;
        stride = ir::Mul::make(stride, bounds[d].extent);
    }
    return l;
}

// An assertion that the dense allocation of a region fits in the 32-bit index space.
Stmt size_check(const std::string& func, const ir::Region& bounds) {
    const Expr limit = ir::make_const(Int(64), int64_t(0x7fffffff));
    Expr size = ir::make_one(Int(64)), fits = ir::const_true();
    for (const ir::Range& r : bounds) {
        Expr extent = ir::Cast::make(Int(64), ir::Max::make(r.extent, ir::make_zero(Int(32))));
        size = ir::Mul::make(size, extent);
        fits = ir::And::make(fits, ir::LE::make(size, limit));
    }
    Expr msg = ir::Call::make_intrinsic(
        Int(32), ir::Intrinsic::ErrorMessage,
        {ir::make_const(Int(32), int64_t(tessera_error_out_of_memory)),
         Expr("Func " + func +
              " needs more than 2^31 elements of storage for the region the pipeline requires ("),
         size,
         Expr(" elements at least). Clamp the coordinates at which " + func + " is called, or bound it.")});
    return ir::AssertStmt::make(fits, msg);
}

class FlattenStorage : public ir::Mutator {
public:
    explicit FlattenStorage(const Environment& e) : env(e) {
        for (const std::string& name : env.outputs) {
            const lang::FunctionContents& f = env.function(name);
            const int n = int(f.output_types.size());
            for (int i = 0; i < n; i++) {
                layouts[value_buffer(name, i, n)] = argument_layout(value_buffer(name, i, n), f.dimensions());
            }
        }
    }

private:
    const Environment& env;
    std::map<std::string, Layout> layouts;  // by flat buffer name

    const Layout& layout_of(const std::string& buffer) const {
        auto it = layouts.find(buffer);
        TESSERA_INTERNAL_CHECK(it != layouts.end()) << "no layout for " << buffer;
        return it->second;
    }

    int values_of(const std::string& func) const { return int(env.function(func).output_types.size()); }

    Stmt visit(const ir::Realize* op) override {
        const int n = int(op->types.size());
        for (int i = 0; i < n; i++)
            layouts[value_buffer(op->name, i, n)] = dense_layout(env.function(op->name), op->bounds);
        Stmt body = mutate(op->body);
        std::vector<Expr> extents;
        for (const ir::Range& r : op->bounds) extents.push_back(r.extent);
        for (int i = n - 1; i >= 0; i--)
            body = ir::Allocate::make(value_buffer(op->name, i, n), op->types[i], extents, body,
                                      env.function(op->name).schedule.memory_type);
        return ir::Block::make(size_check(op->name, op->bounds), body);
    }

    Stmt visit(const ir::Provide* op) override {
        std::vector<Expr> args;
        for (const Expr& a : op->args) args.push_back(mutate(a));
        const int n = int(op->values.size());
        std::vector<Stmt> stores;
        for (int i = 0; i < n; i++) {
            const std::string buffer = value_buffer(op->name, i, n);
            stores.push_back(
                ir::Store::make(buffer, mutate(op->values[i]), flat_index(layout_of(buffer), args)));
        }
        return ir::Block::make(std::move(stores));
    }

    Expr visit(const ir::Call* op) override {
        if (op->call_type != ir::CallType::Func && op->call_type != ir::CallType::Image)
            return ir::Mutator::visit(op);
        std::vector<Expr> args;
        for (const Expr& a : op->args) args.push_back(mutate(a));
        if (op->call_type == ir::CallType::Image) {
            Layout l = argument_layout(op->name, int(args.size()));
            return ir::Load::make(op->type, op->name, flat_index(l, args));
        }
        const std::string buffer = value_buffer(op->name, op->value_index, values_of(op->name));
        return ir::Load::make(op->type, buffer, flat_index(layout_of(buffer), args));
    }
};

}  // namespace

ir::Stmt flatten_storage(const ir::Stmt& s, const Environment& env) { return FlattenStorage(env).mutate(s); }

}  // namespace tessera::lowering
