#include "lowering/vectorize_loops.h"

#include <algorithm>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/visitor.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

using ir::IRKind;
using ir::Stmt;

// Why a loop cannot be vectorized; it then runs serially.
struct NotVectorizable {
    std::string reason;
};

// More lanes than this is surely a mistake, and would only make LLVM slow: such loops run serially.
constexpr int64_t kMaxLanes = 1024;

// ---- Names ----

// Names for new variables that no variable of the statement has.
class FreshNames {
public:
    explicit FreshNames(const Stmt& s) : used_(ir::variables_read(s)) {}
    std::string make(const std::string& base) {
        std::string name = base;
        for (int k = 1; used_.count(name); k++) name = base + "." + std::to_string(k);
        used_.insert(name);
        return name;
    }

private:
    std::unordered_set<std::string> used_;
};

// ---- Vector arithmetic in canonical form ----

// The scalar that every lane of e holds, if e is a scalar or a broadcast; else undefined.
Expr scalar_value(const Expr& e) {
    if (e.type().is_scalar()) return e;
    if (const ir::Broadcast* b = e.as<ir::Broadcast>()) return b->value;
    return Expr();
}

Expr widen(const Expr& e, int lanes) { return e.type().is_scalar() ? ir::Broadcast::make(e, lanes) : e; }

Expr make_binary(IRKind kind, const Expr& a, const Expr& b) {
    switch (kind) {
#define TESSERA_MAKE(T) \
    case IRKind::T: return ir::T::make(a, b);
        TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_MAKE)
#undef TESSERA_MAKE
        default: TESSERA_INTERNAL_ERROR << "make_binary of a non-binary node";
    }
    return Expr();
}

// A ramp, or a broadcast where the stride folds to zero. Strides stay folded, so that codegen can
// tell dense accesses (stride 1) from others.
Expr make_ramp(const Expr& base, const Expr& stride, int lanes) {
    Expr s = ir::simplify_local(stride);
    return ir::is_const_zero(s) ? ir::Broadcast::make(base, lanes) : ir::Ramp::make(base, s, lanes);
}

// a op b, where either may be a vector: broadcasts combine into a broadcast, and integer ramps with
// broadcasts and ramps into a ramp (exact in wrapping arithmetic: lane i of ramp(b, s) is b + i*s).
Expr vector_binary(IRKind kind, const Expr& a, const Expr& b) {
    const int lanes = std::max(a.type().lanes(), b.type().lanes());
    if (lanes == 1) return make_binary(kind, a, b);
    const Expr sa = scalar_value(a), sb = scalar_value(b);
    if (sa.defined() && sb.defined()) return ir::Broadcast::make(make_binary(kind, sa, sb), lanes);
    const Type t = a.type().element_of();
    const ir::Ramp *ra = a.as<ir::Ramp>(), *rb = b.as<ir::Ramp>();
    if (t.is_int_or_uint() && !t.is_bool() && (ra || rb)) {
        using ir::Add, ir::Sub, ir::Mul;
        switch (kind) {
            case IRKind::Add:
                if (ra && rb)
                    return make_ramp(Add::make(ra->base, rb->base), Add::make(ra->stride, rb->stride), lanes);
                if (ra && sb.defined()) return make_ramp(Add::make(ra->base, sb), ra->stride, lanes);
                if (sa.defined() && rb) return make_ramp(Add::make(sa, rb->base), rb->stride, lanes);
                break;
            case IRKind::Sub:
                if (ra && rb)
                    return make_ramp(Sub::make(ra->base, rb->base), Sub::make(ra->stride, rb->stride), lanes);
                if (ra && sb.defined()) return make_ramp(Sub::make(ra->base, sb), ra->stride, lanes);
                if (sa.defined() && rb)
                    return make_ramp(Sub::make(sa, rb->base), Sub::make(ir::make_zero(t), rb->stride), lanes);
                break;
            case IRKind::Mul:
                if (ra && sb.defined())
                    return make_ramp(Mul::make(ra->base, sb), Mul::make(ra->stride, sb), lanes);
                if (sa.defined() && rb)
                    return make_ramp(Mul::make(sa, rb->base), Mul::make(sa, rb->stride), lanes);
                break;
            default: break;
        }
    }
    return make_binary(kind, widen(a, lanes), widen(b, lanes));
}

// Lane `lane` (an Int(32)) of the vector v, as a scalar.
Expr lane_of(const Expr& v, const Expr& lane) {
    const Type t = v.type().element_of();
    if (const ir::Broadcast* b = v.as<ir::Broadcast>()) return b->value;
    if (const ir::Ramp* r = v.as<ir::Ramp>()) {
        Expr i = t == Int(32) ? lane : ir::Cast::make(t, lane);
        return ir::is_const_one(r->stride) ? ir::Add::make(r->base, i)
                                           : ir::Add::make(r->base, ir::Mul::make(i, r->stride));
    }
    return ir::Call::make_intrinsic(t, ir::Intrinsic::ExtractLane, {v, lane});
}

// Whether distinct lanes of a vector index certainly address distinct elements.
bool lanes_are_distinct(const Expr& index) {
    const ir::Ramp* r = index.as<ir::Ramp>();
    return r && ir::is_const(r->stride) && !ir::is_const_zero(r->stride);
}

// Intrinsics computed lane by lane with no effect but their value.
bool is_lane_wise(ir::Intrinsic op) {
    using ir::Intrinsic;
    switch (op) {
        case Intrinsic::Abs:
        case Intrinsic::Sqrt:
        case Intrinsic::Exp:
        case Intrinsic::Log:
        case Intrinsic::Pow:
        case Intrinsic::Fma:
        case Intrinsic::Sin:
        case Intrinsic::Cos:
        case Intrinsic::Tan:
        case Intrinsic::Tanh:
        case Intrinsic::Floor:
        case Intrinsic::Ceil:
        case Intrinsic::Round:
        case Intrinsic::Trunc:
        case Intrinsic::IsNan:
        case Intrinsic::BitAnd:
        case Intrinsic::BitOr:
        case Intrinsic::BitXor:
        case Intrinsic::BitNot:
        case Intrinsic::ShiftLeft:
        case Intrinsic::ShiftRight:
        case Intrinsic::Likely:
        case Intrinsic::LikelyIfInnermost: return true;
        default: return false;
    }
}

bool is_buffer_field(ir::Intrinsic op) {
    using ir::Intrinsic;
    return op == Intrinsic::BufferHost || op == Intrinsic::BufferMin || op == Intrinsic::BufferExtent ||
           op == Intrinsic::BufferStride || op == Intrinsic::BufferDimensions ||
           op == Intrinsic::BufferTypeCode || op == Intrinsic::BufferTypeBits ||
           op == Intrinsic::BufferTypeLanes;
}

// ---- One lane of the original statements ----

// The original, scalar statements as one lane runs them: the lane's own copy of each allocation
// the vector body gave every lane, and loops marked Vectorized inside run serially.
class OneLane : public ir::Mutator {
public:
    OneLane(const std::unordered_map<std::string, int>& per_lane, Expr lane, int lanes)
        : per_lane_(per_lane), lane_(std::move(lane)), lanes_(lanes) {}

private:
    const std::unordered_map<std::string, int>& per_lane_;
    Expr lane_;
    int lanes_;
    std::unordered_map<std::string, int> reallocated_;

    bool is_per_lane(const std::string& name) const {
        auto a = per_lane_.find(name);
        auto r = reallocated_.find(name);
        return a != per_lane_.end() && a->second > 0 && (r == reallocated_.end() || r->second == 0);
    }
    Expr lane_index(const Expr& index) const {
        return ir::Add::make(ir::Mul::make(index, ir::make_const(Int(32), int64_t(lanes_))), lane_);
    }

    using ir::Mutator::visit;
    Expr visit(const ir::Load* op) override {
        Expr index = mutate(op->index);
        if (is_per_lane(op->name)) index = lane_index(index);
        return index.same_as(op->index) ? ir::handle_of(op) : ir::Load::make(op->type, op->name, index);
    }
    Stmt visit(const ir::Store* op) override {
        Expr value = mutate(op->value), index = mutate(op->index);
        if (is_per_lane(op->name)) index = lane_index(index);
        if (value.same_as(op->value) && index.same_as(op->index)) return ir::handle_of(op);
        return ir::Store::make(op->name, value, index);
    }
    Stmt visit(const ir::Allocate* op) override {
        reallocated_[op->name]++;
        Stmt s = ir::Mutator::visit(op);
        reallocated_[op->name]--;
        return s;
    }
    Stmt visit(const ir::For* op) override {
        Stmt s = ir::Mutator::visit(op);
        const ir::For* loop = s.as<ir::For>();
        if (!loop || loop->for_kind != ir::ForKind::Vectorized) return s;
        return ir::For::make(loop->name, loop->min, loop->extent, ir::ForKind::Serial, loop->body);
    }
};

// ---- The vector body of one loop ----

class VectorBody : public ir::Mutator {
public:
    VectorBody(int lanes, FreshNames& names) : lanes_(lanes), names_(names) {}

    // The loop's body on vectors, after a let of the loop variable to the loop's min (the ramp's
    // base). Throws NotVectorizable.
    Stmt vectorize(const ir::For* loop) {
        bind(loop->name, ir::Ramp::make(ir::int_var(loop->name), ir::make_one(Int(32)), lanes_), true);
        Stmt body = mutate(loop->body);
        unbind(loop->name, true);
        check_lane_order();
        return ir::LetStmt::make(loop->name, loop->min, body);
    }

    Expr mutate(const Expr& e) override {
        if (e.defined() && e.type().is_vector()) throw NotVectorizable{"its body has vectors already"};
        return ir::Mutator::mutate(e);
    }
    using ir::Mutator::mutate;

private:
    const int lanes_;
    FreshNames& names_;
    // What each name stands for in the vector body, innermost binding last: a vector expression,
    // or undefined where the name is bound to a scalar.
    std::unordered_map<std::string, std::vector<Expr>> scope_;
    // The statement-level bindings enclosing the current statement, outermost first, with what
    // they stand for: the lane-by-lane fallback of an if rebinds them to one lane's value.
    std::vector<std::pair<std::string, Expr>> enclosing_;
    // Allocations inside the loop, which every lane has a copy of (a count per name, for nesting).
    std::unordered_map<std::string, int> per_lane_;
    // Buffers loaded, and buffers stored at indices whose lanes may collide.
    std::unordered_set<std::string> loaded_, stored_colliding_;
    // Within an if whose condition varies by lane, run on the lanes where it holds: the variable
    // holding which lanes those are. Vector loads and stores here take it as their predicate.
    Expr predicate_;

    void bind(const std::string& name, const Expr& replacement, bool is_statement) {
        scope_[name].push_back(replacement);
        if (is_statement) enclosing_.emplace_back(name, replacement);
    }
    void unbind(const std::string& name, bool is_statement) {
        auto it = scope_.find(name);
        it->second.pop_back();
        if (it->second.empty()) scope_.erase(it);
        if (is_statement) enclosing_.pop_back();
    }

    // value as an up-sampling's coordinate, ramp(b, s) / k plus or minus broadcasts, with the
    // ramp's base replaced by a variable of the given name, and b in *base; undefined where value
    // is not one.
    Expr upsampled_around(const Expr& value, const std::string& name, Expr* base) const {
        if (const ir::Div* d = value.as<ir::Div>()) {
            const ir::Ramp* r = d->a.as<ir::Ramp>();
            const ir::Broadcast* k = d->b.as<ir::Broadcast>();
            if (!r || !ir::is_const(r->stride) || !k || !ir::is_const(k->value)) return Expr();
            *base = r->base;
            return ir::Div::make(ir::Ramp::make(ir::Variable::make(r->base.type(), name), r->stride, lanes_),
                                 d->b);
        }
        if (const ir::Add* a = value.as<ir::Add>()) {
            if (Expr e; a->b.as<ir::Broadcast>() && (e = upsampled_around(a->a, name, base)).defined())
                return ir::Add::make(e, a->b);
            if (Expr e; a->a.as<ir::Broadcast>() && (e = upsampled_around(a->b, name, base)).defined())
                return ir::Add::make(a->a, e);
        }
        if (const ir::Sub* s = value.as<ir::Sub>()) {
            if (Expr e; s->b.as<ir::Broadcast>() && (e = upsampled_around(s->a, name, base)).defined())
                return ir::Sub::make(e, s->b);
        }
        return Expr();
    }

    // Binds name to the (widened) value of a let, and returns the lets to emit in its place,
    // outermost first. A ramp's let binds its scalar base under the let's name and a broadcast's
    // its scalar, so that uses stay ramps and broadcasts (and up-samplings); other vectors get a
    // vector variable.
    std::vector<std::pair<std::string, Expr>> bind_let(const std::string& name, const Expr& value,
                                                       bool is_statement) {
        if (value.type().is_scalar()) {
            bind(name, Expr(), is_statement);
            return {{name, value}};
        }
        if (const ir::Broadcast* b = value.as<ir::Broadcast>()) {
            bind(name, ir::Broadcast::make(ir::Variable::make(b->value.type(), name), lanes_), is_statement);
            return {{name, b->value}};
        }
        if (const ir::Ramp* r = value.as<ir::Ramp>()) {
            std::vector<std::pair<std::string, Expr>> lets;
            Expr stride = r->stride;
            if (!ir::is_const(stride)) {
                // Bound first: the stride may mention an outer variable of the let's name.
                const std::string stride_name = names_.make(name + ".stride");
                lets.emplace_back(stride_name, stride);
                stride = ir::Variable::make(stride.type(), stride_name);
            }
            lets.emplace_back(name, r->base);
            bind(name, ir::Ramp::make(ir::Variable::make(r->base.type(), name), stride, lanes_),
                 is_statement);
            return lets;
        }
        // An up-sampling's coordinate: its uses keep the division, so that a load indexed by it
        // stays one dense load (codegen_llvm_upsampled.cpp).
        Expr base;
        if (Expr upsampled = upsampled_around(value, name, &base); upsampled.defined()) {
            bind(name, upsampled, is_statement);
            return {{name, base}};
        }
        const std::string vector_name = names_.make(name + ".widened");
        bind(name, ir::Variable::make(value.type(), vector_name), is_statement);
        return {{vector_name, value}};
    }

    template <typename LetNode, typename Body>
    Body let_chain(const LetNode* op, bool is_statement) {
        std::vector<std::pair<std::string, Expr>> lets;
        std::vector<std::string> bound;
        const LetNode* let = op;
        while (true) {
            for (auto& l : bind_let(let->name, mutate(let->value), is_statement))
                lets.push_back(std::move(l));
            bound.push_back(let->name);
            const LetNode* next = let->body.template as<LetNode>();
            if (!next) break;
            let = next;
        }
        Body body = mutate(let->body);
        for (auto it = bound.rbegin(); it != bound.rend(); ++it) unbind(*it, is_statement);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            body = LetNode::make(it->first, it->second, body);
        return body;
    }

    // The index of a per-lane allocation's element for each lane: index * lanes + lane.
    Expr per_lane_index(const Expr& index) const {
        Expr lane = ir::Ramp::make(ir::make_zero(Int(32)), ir::make_one(Int(32)), lanes_);
        return vector_binary(
            IRKind::Add, vector_binary(IRKind::Mul, index, ir::make_const(Int(32), int64_t(lanes_))), lane);
    }
    bool is_per_lane(const std::string& name) const {
        auto it = per_lane_.find(name);
        return it != per_lane_.end() && it->second > 0;
    }

    // Vector order (each statement for all lanes, then the next) is lane order as long as no lane
    // reads what another lane's store in the same statement may have overwritten.
    void check_lane_order() const {
        for (const std::string& name : stored_colliding_) {
            if (loaded_.count(name))
                throw NotVectorizable{"lanes may store to one element of " + name + ", which it also loads"};
        }
    }

    // ---- Expressions ----

    Expr visit(const ir::Variable* op) override {
        auto it = scope_.find(op->name);
        if (it == scope_.end() || !it->second.back().defined()) return ir::handle_of(op);
        return it->second.back();
    }

    Expr binary(const Expr& original, IRKind kind, const Expr& a0, const Expr& b0) {
        Expr a = mutate(a0), b = mutate(b0);
        if (a.same_as(a0) && b.same_as(b0)) return original;
        return vector_binary(kind, a, b);
    }
#define TESSERA_VISIT_BINARY(T) \
    Expr visit(const ir::T* op) override { return binary(ir::handle_of(op), IRKind::T, op->a, op->b); }
    TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_VISIT_BINARY)
#undef TESSERA_VISIT_BINARY

    Expr visit(const ir::Cast* op) override {
        Expr v = mutate(op->value);
        if (v.same_as(op->value)) return ir::handle_of(op);
        if (Expr s = scalar_value(v); s.defined()) {
            Expr c = ir::Cast::make(op->type, s);
            return v.type().is_vector() ? ir::Broadcast::make(c, lanes_) : c;
        }
        return ir::Cast::make(op->type.with_lanes(lanes_), v);
    }

    Expr visit(const ir::Reinterpret* op) override {
        Expr v = mutate(op->value);
        if (v.same_as(op->value)) return ir::handle_of(op);
        if (Expr s = scalar_value(v); s.defined()) {
            Expr c = ir::Reinterpret::make(op->type, s);
            return v.type().is_vector() ? ir::Broadcast::make(c, lanes_) : c;
        }
        return ir::Reinterpret::make(op->type.with_lanes(lanes_), v);
    }

    Expr visit(const ir::Not* op) override {
        Expr a = mutate(op->a);
        if (a.same_as(op->a)) return ir::handle_of(op);
        if (Expr s = scalar_value(a); s.defined()) {
            Expr n = ir::Not::make(s);
            return a.type().is_vector() ? ir::Broadcast::make(n, lanes_) : n;
        }
        return ir::Not::make(a);
    }

    Expr visit(const ir::Select* op) override {
        Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
        if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
            return ir::handle_of(op);
        const bool vector = c.type().is_vector() || t.type().is_vector() || f.type().is_vector();
        Expr sc = scalar_value(c), st = scalar_value(t), sf = scalar_value(f);
        if (!vector) return ir::Select::make(c, t, f);
        if (sc.defined() && st.defined() && sf.defined())
            return ir::Broadcast::make(ir::Select::make(sc, st, sf), lanes_);
        // A condition that is the same in every lane stays a scalar.
        return ir::Select::make(sc.defined() ? sc : c, widen(t, lanes_), widen(f, lanes_));
    }

    Expr visit(const ir::Load* op) override {
        Expr index = mutate(op->index);
        loaded_.insert(op->name);
        if (is_per_lane(op->name)) index = per_lane_index(index);
        if (Expr s = scalar_value(index); s.defined()) {
            // One element for all lanes: one scalar load.
            Expr load = s.same_as(op->index) ? ir::handle_of(op) : ir::Load::make(op->type, op->name, s);
            return index.type().is_vector() ? ir::Broadcast::make(load, lanes_) : load;
        }
        return ir::Load::make(op->type.with_lanes(lanes_), op->name, index, predicate_);
    }

    Expr visit(const ir::Let* op) override { return let_chain<ir::Let, Expr>(op, false); }

    Expr visit(const ir::Call* op) override {
        if (op->call_type == ir::CallType::Intrinsic && op->intrinsic == ir::Intrinsic::Require)
            return requirement(op);
        if (op->call_type == ir::CallType::Extern ||
            (op->call_type == ir::CallType::Intrinsic && is_lane_wise(op->intrinsic))) {
            return lane_wise_call(op);
        }
        if (op->call_type == ir::CallType::Intrinsic &&
            (op->intrinsic == ir::Intrinsic::ErrorMessage || is_buffer_field(op->intrinsic))) {
            // A failed assertion's message shows vectors whole; buffer fields never vary by lane.
            Expr call = ir::Mutator::visit(op);
            if (is_buffer_field(op->intrinsic)) {
                for (const Expr& a : call.as<ir::Call>()->args) {
                    if (a.type().is_vector()) throw NotVectorizable{"a buffer field depends on the lane"};
                }
            }
            return call;
        }
        throw NotVectorizable{"it calls " + op->name + ", which cannot be computed on vectors"};
    }

    // require(condition, value, message) on vectors: the condition need hold only in the lanes that
    // run, those of the predicate, as only they load or store.
    Expr requirement(const ir::Call* op) {
        Expr condition = mutate(op->args[0]), value = mutate(op->args[1]), message = mutate(op->args[2]);
        if (condition.type().is_vector() && predicate_.defined())
            condition = ir::Or::make(condition, ir::Not::make(predicate_));
        if (condition.same_as(op->args[0]) && value.same_as(op->args[1]) && message.same_as(op->args[2]))
            return ir::handle_of(op);
        return ir::Call::make_intrinsic(value.type(), ir::Intrinsic::Require, {condition, value, message});
    }

    // A call computed lane by lane: of the scalars where every argument is the same in all lanes.
    Expr lane_wise_call(const ir::Call* op) {
        std::vector<Expr> args, scalars;
        bool changed = false, vector = false, uniform = true;
        for (const Expr& a : op->args) {
            args.push_back(mutate(a));
            changed = changed || !args.back().same_as(a);
            vector = vector || args.back().type().is_vector();
            scalars.push_back(scalar_value(args.back()));
            uniform = uniform && scalars.back().defined();
        }
        if (!changed) return ir::handle_of(op);
        auto call = [&](Type t, std::vector<Expr> a) {
            return op->call_type == ir::CallType::Extern
                       ? ir::Call::make_extern(t, op->name, std::move(a))
                       : ir::Call::make_intrinsic(t, op->intrinsic, std::move(a));
        };
        if (uniform) {
            Expr c = call(op->type, std::move(scalars));
            return vector ? ir::Broadcast::make(c, lanes_) : c;
        }
        for (Expr& a : args) a = widen(a, lanes_);
        return call(op->type.with_lanes(lanes_), std::move(args));
    }

    // ---- Statements ----

    Stmt visit(const ir::LetStmt* op) override { return let_chain<ir::LetStmt, Stmt>(op, true); }

    Stmt visit(const ir::Store* op) override {
        Expr value = mutate(op->value), index = mutate(op->index);
        const bool per_lane = is_per_lane(op->name);
        if (per_lane) index = per_lane_index(index);
        Expr sv = scalar_value(value), si = scalar_value(index);
        if (sv.defined() && si.defined()) {
            // The same value to the same element in every lane: one scalar store.
            if (sv.same_as(op->value) && si.same_as(op->index)) return ir::handle_of(op);
            return ir::Store::make(op->name, sv, si);
        }
        index = widen(index, lanes_);
        // Codegen stores colliding lanes in lane order, so the last lane's value stays, as serially.
        if (!per_lane && !lanes_are_distinct(index)) stored_colliding_.insert(op->name);
        return ir::Store::make(op->name, widen(value, lanes_), index, predicate_);
    }

    Stmt visit(const ir::Atomic* op) override {
        throw NotVectorizable{"it updates " + op->producer + " atomically, one element at a time"};
    }

    Stmt visit(const ir::For* op) override {
        Expr min = scalar_value(mutate(op->min)), extent = scalar_value(mutate(op->extent));
        if (!min.defined() || !extent.defined())
            throw NotVectorizable{"the bounds of the loop over " + op->name + " inside depend on the lane"};
        if (op->for_kind == ir::ForKind::Parallel)
            throw NotVectorizable{"it contains a parallel loop over " + op->name};
        // A vectorized loop inside a vectorized loop runs serially, on the outer loop's vectors.
        const ir::ForKind kind = op->for_kind == ir::ForKind::Vectorized ? ir::ForKind::Serial : op->for_kind;
        bind(op->name, Expr(), true);
        Stmt body = mutate(op->body);
        unbind(op->name, true);
        return ir::For::make(op->name, min, extent, kind, body);
    }

    Stmt visit(const ir::Allocate* op) override {
        std::vector<Expr> extents;
        for (const Expr& e : op->extents) {
            Expr extent = scalar_value(mutate(e));
            if (!extent.defined()) throw NotVectorizable{"the size of " + op->name + " depends on the lane"};
            extents.push_back(extent);
        }
        extents.push_back(ir::make_const(Int(32), int64_t(lanes_)));
        per_lane_[op->name]++;
        Stmt body = mutate(op->body);
        per_lane_[op->name]--;
        return ir::Allocate::make(op->name, op->type, std::move(extents), body, op->memory_type);
    }

    Stmt visit(const ir::IfThenElse* op) override {
        Expr condition = mutate(op->condition);
        // likely(c) of a vector c: the hint goes to the test of all lanes.
        const ir::Call* hint = condition.as<ir::Call>();
        const bool likely = hint && hint->call_type == ir::CallType::Intrinsic &&
                            hint->intrinsic == ir::Intrinsic::Likely && condition.type().is_vector();
        if (likely) {
            Expr inner = hint->args[0];
            condition = inner;
        }
        auto with_hint = [&](const Expr& c) {
            return likely ? ir::Call::make_intrinsic(Bool(), ir::Intrinsic::Likely, {c}) : c;
        };
        if (Expr s = scalar_value(condition); s.defined()) {
            Stmt then_case = mutate(op->then_case), else_case = mutate(op->else_case);
            return ir::IfThenElse::make(with_hint(s), then_case, else_case);
        }
        const bool predicable = !op->else_case.defined() && only_loads_and_stores(op->then_case);
        if (predicate_.defined()) {
            // Inside lanes already chosen: those where this condition holds as well.
            if (!predicable) throw NotVectorizable{"a guard inside a guard has an else branch"};
            return on_lanes(ir::And::make(predicate_, condition), op->then_case);
        }
        Stmt then_case = mutate(op->then_case);
        Expr all = ir::Call::make_intrinsic(Bool(), ir::Intrinsic::AllLanesTrue, {condition});
        // Where some lanes fail the condition, vector loads and stores masked by it; or lane by
        // lane, where the branch does more than load and store.
        Stmt some_lanes = predicable ? on_lanes(condition, op->then_case) : lane_by_lane(ir::handle_of(op));
        return ir::IfThenElse::make(with_hint(all), then_case, some_lanes);
    }

    // s on the lanes where `lanes` holds, none when it holds in none: its vector loads and stores
    // masked. Loads of one element for all lanes stay whole, as every lane that runs reads it.
    Stmt on_lanes(const Expr& lanes, const Stmt& s) {
        const std::string name = names_.make(enclosing_.front().first + ".lanes");
        const Expr chosen = ir::Variable::make(Bool(lanes_), name);
        const Expr outer = predicate_;
        predicate_ = chosen;
        Stmt body;
        try {
            body = mutate(s);
        } catch (...) {
            predicate_ = outer;
            throw;
        }
        predicate_ = outer;
        const Expr none =
            ir::Call::make_intrinsic(Bool(), ir::Intrinsic::AllLanesTrue, {ir::Not::make(chosen)});
        return ir::LetStmt::make(name, lanes, ir::IfThenElse::make(ir::Not::make(none), body));
    }

    // Whether s only computes, loads and stores (in lets, loops, blocks and ifs without else):
    // nothing that must not run on the lanes masked off.
    static bool only_loads_and_stores(const Stmt& s) {
        class Check : public ir::Visitor {
        public:
            bool ok = true;

        private:
            void visit(const ir::IfThenElse* op) override {
                ok = ok && !op->else_case.defined();
                ir::Visitor::visit(op);
            }
            void visit(const ir::For* op) override {
                ok = ok && op->for_kind != ir::ForKind::Parallel;
                ir::Visitor::visit(op);
            }
            void visit(const ir::Allocate*) override { ok = false; }
            void visit(const ir::AssertStmt*) override { ok = false; }
            void visit(const ir::Evaluate*) override { ok = false; }
            void visit(const ir::Free*) override { ok = false; }
            void visit(const ir::Call* op) override {
                // A requirement is checked on the lanes that run (see requirement()).
                ok = ok && (op->call_type == ir::CallType::Extern ||
                            (op->call_type == ir::CallType::Intrinsic &&
                             (is_lane_wise(op->intrinsic) || op->intrinsic == ir::Intrinsic::Require ||
                              op->intrinsic == ir::Intrinsic::ErrorMessage)));
                ir::Visitor::visit(op);
            }
        } check;
        check.include(s);
        return check.ok;
    }

    // The original statement s for each lane in turn, with the bindings around it rebound to the
    // lane's values.
    Stmt lane_by_lane(const Stmt& s) {
        const std::string lane_name = names_.make(enclosing_.front().first + ".lane");
        const Expr lane = ir::int_var(lane_name);
        Stmt body = OneLane(per_lane_, lane, lanes_).mutate(s);
        const std::unordered_set<std::string> used = ir::variables_read(body);
        std::unordered_set<std::string> rebound;
        for (auto it = enclosing_.rbegin(); it != enclosing_.rend(); ++it) {
            const auto& [name, replacement] = *it;
            // Only the innermost binding of a name is visible. Scalars, and the scalars of
            // broadcasts (bound under the name itself), are the same in every lane.
            if (!rebound.insert(name).second || !replacement.defined() || !used.count(name)) continue;
            if (replacement.as<ir::Broadcast>()) continue;
            body = ir::LetStmt::make(name, lane_of(replacement, lane), body);
        }
        return ir::For::make(lane_name, ir::make_zero(Int(32)), ir::make_const(Int(32), int64_t(lanes_)),
                             ir::ForKind::Serial, body);
    }

    Stmt visit(const ir::Provide* op) override {
        throw NotVectorizable{"it provides " + op->name + " (storage is not flattened yet)"};
    }
    Stmt visit(const ir::Realize* op) override {
        throw NotVectorizable{"it realizes " + op->name + " (storage is not flattened yet)"};
    }
};

// ---- The pass ----

class VectorizeLoops : public ir::Mutator {
public:
    explicit VectorizeLoops(const Stmt& s) : names_(s) {}

private:
    FreshNames names_;

    using ir::Mutator::visit;
    Stmt visit(const ir::For* loop) override {
        if (loop->for_kind != ir::ForKind::Vectorized) return ir::Mutator::visit(loop);
        const std::optional<int64_t> extent = ir::as_const_int(ir::simplify(loop->extent));
        // Schedule validation guarantees a constant extent; reaching here without one is a compiler bug.
        TESSERA_INTERNAL_CHECK(extent)
            << "vectorized loop " << loop->name << " has extent " << ir::to_string(loop->extent);
        if (*extent >= 2 && *extent <= kMaxLanes) {
            try {
                return VectorBody(int(*extent), names_).vectorize(loop);
            } catch (const NotVectorizable&) {
                // Falls through to the serial loop, which is always correct.
            }
        }
        // Vectorized loops inside may still be vectorized.
        return ir::For::make(loop->name, loop->min, loop->extent, ir::ForKind::Serial, mutate(loop->body));
    }
};

}  // namespace

ir::Stmt vectorize_loops(const ir::Stmt& s) { return VectorizeLoops(s).mutate(s); }

}  // namespace tessera::lowering
