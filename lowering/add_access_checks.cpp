#include "lowering/add_access_checks.h"

#include <map>
#include <optional>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "lowering/names.h"
#include "tessera/operators.h"
#include "tessera/runtime.h"

namespace tessera::lowering {
namespace {

using ir::Expr;
using ir::Stmt;

// Where an access goes, for the message: a Func's storage or a buffer passed to the pipeline.
struct Storage {
    std::string description;  // "Func f", "Input buffer b0"
    ir::Region region;
    std::string region_name;  // "the region allocated for it", "the buffer passed"
};

ir::Region buffer_region(const std::string& buffer, size_t dims) {
    ir::Region r;
    for (size_t d = 0; d < dims; d++)
        r.push_back({ir::int_var(buffer_min(buffer, int(d))), ir::int_var(buffer_extent(buffer, int(d)))});
    return r;
}

// require(every coordinate inside the region, access, message).
Expr checked(const Expr& access, const std::vector<Expr>& coordinates, const Storage& storage, bool write) {
    Expr inside;
    std::vector<Expr> parts = {ir::make_const(Int(32), int64_t(tessera_error_access_out_of_bounds)),
                               Expr(storage.description + (write ? " is written at (" : " is read at ("))};
    for (size_t d = 0; d < coordinates.size(); d++) {
        const ir::Range& r = storage.region[d];
        const Expr& c = coordinates[d];
        const Expr in_dimension = ir::And::make(ir::LE::make(r.min, c), ir::LT::make(c, r.min + r.extent));
        inside = inside.defined() ? ir::And::make(inside, in_dimension) : in_dimension;
        if (d > 0) parts.push_back(Expr(", "));
        parts.push_back(c);
    }
    parts.push_back(Expr("), outside " + storage.region_name + ": "));
    for (size_t d = 0; d < storage.region.size(); d++) {
        const ir::Range& r = storage.region[d];
        parts.insert(parts.end(),
                     {Expr(d > 0 ? " x [" : "["), r.min, Expr(", "), r.min + r.extent - 1, Expr("]")});
    }
    // Buffers are checked against the regions read and written when the pipeline starts, and a
    // legal schedule never reaches outside what it allocates: the compiler computed a wrong index.
    parts.push_back(
        Expr(". Tessera computed an index outside the storage: please report the pipeline "
             "and its schedule."));
    if (!inside.defined()) inside = ir::const_true();
    const Expr message = ir::Call::make_intrinsic(Int(32), ir::Intrinsic::ErrorMessage, std::move(parts));
    return ir::Call::make_intrinsic(access.type(), ir::Intrinsic::Require, {inside, access, message});
}

class AddAccessChecks : public ir::Mutator {
public:
    explicit AddAccessChecks(const Environment& env) : env_(env) {}

private:
    using ir::Mutator::visit;
    const Environment& env_;
    // The regions of the realizations around the statement visited, innermost last, by Func.
    std::map<std::string, std::vector<ir::Region>> realized_;

    int values_of(const std::string& func) const { return int(env_.function(func).output_types.size()); }

    // The storage a Func's value is read from or written to: its realization, or the output buffer.
    std::optional<Storage> func_storage(const std::string& func, int value_index) const {
        const size_t dims = size_t(env_.function(func).dimensions());
        if (auto it = realized_.find(func); it != realized_.end() && !it->second.empty())
            return Storage{"Func " + func, it->second.back(), "the region allocated for it"};
        if (!env_.is_output(func)) return std::nullopt;
        const std::string buffer = value_buffer(func, value_index, values_of(func));
        return Storage{"Output buffer " + buffer, buffer_region(buffer, dims), "the buffer passed"};
    }

    Stmt visit(const ir::Realize* op) override {
        realized_[op->name].push_back(op->bounds);
        Stmt body = mutate(op->body);
        realized_[op->name].pop_back();
        if (body.same_as(op->body)) return ir::handle_of(op);
        return ir::Realize::make(op->name, op->types, op->bounds, body);
    }

    Stmt visit(const ir::Provide* op) override {
        std::vector<Expr> args, values;
        for (const Expr& a : op->args) args.push_back(mutate(a));
        const int n = int(op->values.size());
        for (int i = 0; i < n; i++) {
            Expr value = mutate(op->values[i]);
            if (std::optional<Storage> storage = func_storage(op->name, i))
                value = checked(value, args, *storage, /*write=*/true);
            values.push_back(value);
        }
        return ir::Provide::make(op->name, std::move(values), std::move(args));
    }

    Expr visit(const ir::Call* op) override {
        if (op->call_type != ir::CallType::Func && op->call_type != ir::CallType::Image)
            return ir::Mutator::visit(op);
        const Expr call = ir::Mutator::visit(op);
        const std::vector<Expr>& args = call.as<ir::Call>()->args;
        if (op->call_type == ir::CallType::Image) {
            const Storage storage{"Input buffer " + op->name, buffer_region(op->name, args.size()),
                                  "the buffer passed"};
            return checked(call, args, storage, /*write=*/false);
        }
        std::optional<Storage> storage = func_storage(op->name, op->value_index);
        return storage ? checked(call, args, *storage, /*write=*/false) : call;
    }
};

class WithoutAccessChecks : public ir::Mutator {
    using ir::Mutator::visit;
    Expr visit(const ir::Call* op) override {
        if (op->call_type == ir::CallType::Intrinsic && op->intrinsic == ir::Intrinsic::Require)
            return mutate(op->args[1]);
        return ir::Mutator::visit(op);
    }
};

}  // namespace

Stmt add_access_checks(const Stmt& s, const Environment& env) { return AddAccessChecks(env).mutate(s); }

Stmt without_access_checks(const Stmt& s) { return WithoutAccessChecks().mutate(s); }

}  // namespace tessera::lowering
