// Matching a loop nest against a tensor intrinsic's declaration.
//
// The nest is peeled into its loops, the lets and guards between them and the one Store at its
// heart. The stored value must have the declaration's shape, node for node (up to the order of the
// operands of commutative operations), with a Load where the declaration reads an operand. Each
// access's index, an affine function of the loop variables, then gives the operand's view: the
// element at the origin of the declaration's operand and one stride per dimension.

#include "lowering/tensor_match.h"

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "ir/equal.h"
#include "ir/ir_util.h"
#include "ir/linear_form.h"
#include "ir/node_list.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

using lang::TensorIntrinsicContents;

struct NestLoop {
    std::string name;
    Expr min, extent;
};

struct Nest {
    std::vector<NestLoop> loops;  // outermost first
    std::vector<Expr> guards;
    std::string buffer;  // stored into
    Expr value, index;
};

std::string describe_nest(const Nest& nest) {
    std::ostringstream out;
    std::string indent;
    for (const NestLoop& l : nest.loops) {
        out << indent << "for " << l.name << " in [" << l.min << ", ";
        if (!ir::is_const_zero(l.min)) out << l.min << " + ";
        out << l.extent << "):\n";
        indent += "  ";
    }
    for (const Expr& g : nest.guards) out << indent << "if " << g << ":\n";
    if (!nest.guards.empty()) indent += "  ";
    out << indent << nest.buffer << "[" << nest.index << "] = " << nest.value;
    return out.str();
}

class Matcher {
public:
    Matcher(const ir::For* loop, const TensorIntrinsicContents& in, const std::string& where)
        : in_(in), where_(where) {
        peel(loop);
    }
    TensorMatch match();

private:
    void peel(const ir::For* loop);
    void restore_single_iteration_loops();
    [[noreturn]] void mismatch(const std::string& why) const;

    // The statement.
    struct Access {
        std::string operand;
        std::vector<Expr> args;  // in the declaration's variables
        std::string buffer;
        Type type;
        Expr index;
    };
    bool match_value(const Expr& declared, const Expr& found);
    bool match_children(const std::vector<Expr>& declared, const std::vector<Expr>& found);

    // The operands' views.
    struct Affine {
        Expr base;
        std::map<std::string, Expr> coefficients;  // by loop name
    };
    std::optional<Affine> affine(const Expr& e) const;
    bool uses_nest_var(const Expr& e) const;
    bool same_loops(const std::vector<Expr>& declared_args, const Expr& index) const;
    TensorOperandView view(const std::string& operand, Type type);
    std::vector<Expr> guard_conditions() const;
    void fold_guards_into_extents();
    bool fold_into_extent(const Expr& guard);
    Expr whole_tile();

    const TensorIntrinsicContents& in_;
    const std::string& where_;
    Nest nest_;
    std::vector<Access> accesses_;
    std::map<std::string, size_t> level_of_declared_var_;
    Expr precondition_ = ir::const_true();
};

void Matcher::mismatch(const std::string& why) const {
    TESSERA_USER_ERROR << where_ << ": the loops do not compute what the tensor intrinsic " << in_.name
                       << " does: " << why << "\nThe intrinsic computes:\n"
                       << in_.describe() << "\nThe loops compute:\n"
                       << describe_nest(nest_);
}

void Matcher::peel(const ir::For* loop) {
    std::map<std::string, Expr> lets;
    ir::Stmt s = ir::handle_of(loop);
    while (true) {
        if (const ir::For* f = s.as<ir::For>()) {
            // Vectorized and unrolled loops match as the loops they are: the kernel replaces them
            // in whole tiles, and they keep their kind in the tiles left to the loops.
            TESSERA_USER_CHECK(f->for_kind != ir::ForKind::Parallel)
                << where_ << ": the loop " << f->name << " is parallel, but the tensor intrinsic " << in_.name
                << " runs the loops from the tensorized one inwards as one call; parallelize a loop outside "
                   "it.";
            nest_.loops.push_back({f->name, ir::substitute(lets, f->min), ir::substitute(lets, f->extent)});
            s = f->body;
        } else if (const ir::LetStmt* l = s.as<ir::LetStmt>()) {
            lets[l->name] = ir::substitute(lets, l->value);
            s = l->body;
        } else if (const ir::IfThenElse* i = s.as<ir::IfThenElse>(); i && !i->else_case.defined()) {
            nest_.guards.push_back(ir::simplify(ir::substitute(lets, i->condition)));
            s = i->then_case;
        } else if (const ir::Store* st = s.as<ir::Store>()) {
            // Within the ranges of the loops of constant bounds, (xo * 16 + xi) / 16 is xo for xi
            // in [0, 16): indices of packed layouts become affine.
            std::map<std::string, ir::Interval> ranges;
            for (const NestLoop& l : nest_.loops) {
                Expr min = ir::simplify(l.min), extent = ir::simplify(l.extent);
                if (ir::is_const(min) && ir::is_const(extent))
                    ranges[l.name] = ir::Interval(min, ir::simplify(min + extent - 1));
            }
            nest_.buffer = st->name;
            nest_.value = ir::simplify(ir::substitute(lets, st->value), ranges);
            nest_.index = ir::simplify(ir::substitute(lets, st->index), ranges);
            return;
        } else {
            TESSERA_USER_ERROR << where_ << ": the loops from " << loop->name
                               << " inwards must hold one statement of one Func to be tensorized, but hold:\n"
                               << s;
        }
    }
}

bool is_commutative(ir::IRKind k) {
    using ir::IRKind;
    return k == IRKind::Add || k == IRKind::Mul || k == IRKind::Min || k == IRKind::Max || k == IRKind::EQ ||
           k == IRKind::NE || k == IRKind::And || k == IRKind::Or;
}

// The operands of the nodes the matcher compares, or nullopt for a node compared whole.
std::optional<std::vector<Expr>> children(const Expr& e) {
    switch (e.get()->kind) {
#define TESSERA_BINARY_CHILDREN(T) \
    case ir::IRKind::T: return std::vector<Expr>{e.as<ir::T>()->a, e.as<ir::T>()->b};
        TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_BINARY_CHILDREN)
#undef TESSERA_BINARY_CHILDREN
        case ir::IRKind::Cast: return std::vector<Expr>{e.as<ir::Cast>()->value};
        case ir::IRKind::Reinterpret: return std::vector<Expr>{e.as<ir::Reinterpret>()->value};
        case ir::IRKind::Not: return std::vector<Expr>{e.as<ir::Not>()->a};
        case ir::IRKind::Select: {
            const ir::Select* s = e.as<ir::Select>();
            return std::vector<Expr>{s->condition, s->true_value, s->false_value};
        }
        case ir::IRKind::Call: return e.as<ir::Call>()->args;
        default: return std::nullopt;
    }
}

bool Matcher::match_children(const std::vector<Expr>& declared, const std::vector<Expr>& found) {
    if (declared.size() != found.size()) return false;
    for (size_t i = 0; i < declared.size(); i++) {
        if (!match_value(declared[i], found[i])) return false;
    }
    return true;
}

bool Matcher::match_value(const Expr& declared, const Expr& found) {
    const ir::Call* operand = declared.as<ir::Call>();
    if (operand && (operand->call_type == ir::CallType::Image || operand->call_type == ir::CallType::Func)) {
        const ir::Load* load = found.as<ir::Load>();
        if (!load || load->type != operand->type || !same_loops(operand->args, load->index)) return false;
        const std::string name = operand->call_type == ir::CallType::Func ? in_.output.name : operand->name;
        accesses_.push_back({name, operand->args, load->name, load->type, load->index});
        return true;
    }
    if (declared.get()->kind != found.get()->kind || declared.type() != found.type()) return false;
    if (const ir::Call* c = declared.as<ir::Call>()) {
        const ir::Call* f = found.as<ir::Call>();
        if (c->call_type != f->call_type || c->intrinsic != f->intrinsic || c->name != f->name) return false;
    }
    std::optional<std::vector<Expr>> d = children(declared), f = children(found);
    if (!d) return ir::equal(declared, found);
    const size_t before = accesses_.size();
    if (match_children(*d, *f)) return true;
    accesses_.resize(before);
    // fma(a, b, c) is fma(b, a, c): the product is exact before its one rounding.
    const ir::Call* call = declared.as<ir::Call>();
    if (call && call->intrinsic == ir::Intrinsic::Fma) {
        if (match_children({(*d)[1], (*d)[0], (*d)[2]}, *f)) return true;
        accesses_.resize(before);
        return false;
    }
    if (!is_commutative(declared.get()->kind)) return false;
    if (match_children({(*d)[1], (*d)[0]}, *f)) return true;
    accesses_.resize(before);
    return false;
}

// Whether the declaration's arguments and the index found move with the same loops (those of more
// than one iteration): what tells apart operands of the same type.
bool Matcher::same_loops(const std::vector<Expr>& declared_args, const Expr& index) const {
    for (const auto& [var, level] : level_of_declared_var_) {
        const NestLoop& l = nest_.loops[level];
        if (ir::is_const_one(ir::simplify(l.extent))) continue;
        bool declared_uses = false;
        for (const Expr& arg : declared_args) declared_uses = declared_uses || ir::uses_var(arg, var);
        if (declared_uses != ir::uses_var(index, l.name)) return false;
    }
    return true;
}

bool Matcher::uses_nest_var(const Expr& e) const {
    for (const NestLoop& l : nest_.loops) {
        if (ir::uses_var(e, l.name)) return true;
    }
    return false;
}

// e as base + sum(coefficient * loop variable), the coefficients free of the nest's variables.
std::optional<Matcher::Affine> Matcher::affine(const Expr& e) const {
    if (!uses_nest_var(e)) return Affine{e, {}};
    if (const ir::Variable* v = e.as<ir::Variable>())
        return Affine{ir::make_zero(e.type()), {{v->name, ir::make_one(e.type())}}};
    auto combine = [](Affine a, const Affine& b, int sign) {
        a.base = sign > 0 ? a.base + b.base : a.base - b.base;
        for (const auto& [name, c] : b.coefficients) {
            Expr term = sign > 0 ? c : ir::make_zero(c.type()) - c;
            auto it = a.coefficients.find(name);
            a.coefficients[name] = it == a.coefficients.end() ? term : it->second + term;
        }
        return a;
    };
    auto scale = [](Affine a, const Expr& by) {
        a.base = a.base * by;
        for (auto& [name, c] : a.coefficients) c = c * by;
        return a;
    };
    if (const ir::Add* add = e.as<ir::Add>()) {
        auto a = affine(add->a), b = affine(add->b);
        if (a && b) return combine(*a, *b, 1);
    } else if (const ir::Sub* sub = e.as<ir::Sub>()) {
        auto a = affine(sub->a), b = affine(sub->b);
        if (a && b) return combine(*a, *b, -1);
    } else if (const ir::Mul* mul = e.as<ir::Mul>()) {
        if (!uses_nest_var(mul->a)) {
            if (auto b = affine(mul->b)) return scale(*b, mul->a);
        } else if (!uses_nest_var(mul->b)) {
            if (auto a = affine(mul->a)) return scale(*a, mul->b);
        }
    }
    return std::nullopt;
}

Expr coefficient_of(const std::map<std::string, Expr>& coefficients, const std::string& name) {
    auto it = coefficients.find(name);
    return it == coefficients.end() ? ir::make_zero(Int(32)) : it->second;
}

TensorOperandView Matcher::view(const std::string& operand, Type type) {
    TensorOperandView result;
    bool first = true;
    for (const Access& a : accesses_) {
        if (a.operand != operand) continue;
        std::optional<Affine> index = affine(a.index);
        if (!index)
            mismatch("the index of " + a.buffer + ", " + ir::to_string(a.index) +
                     ", is not affine in the loops.");
        // The declaration's arguments as sums of its variables, each one a loop of the nest.
        std::vector<ir::LinearForm> args;
        for (const Expr& arg : a.args) {
            ir::LinearForm form = ir::linear_form_of(ir::simplify(arg));
            for (const auto& [term, c] : form.terms) {
                const ir::Variable* v = term.as<ir::Variable>();
                TESSERA_USER_CHECK(v && level_of_declared_var_.count(v->name))
                    << "The declaration of the tensor intrinsic " << in_.name << " reads " << operand
                    << " at " << arg << ", which is not a sum of multiples of its loop variables.";
            }
            args.push_back(form);
        }
        // Each dimension's stride is the coefficient of a variable only that dimension moves along.
        std::vector<Expr> strides(args.size()), extents(args.size());
        for (size_t d = 0; d < args.size(); d++) {
            for (const auto& [term, c] : args[d].terms) {
                const std::string& var = term.as<ir::Variable>()->name;
                bool alone = std::abs(c) == 1;
                for (size_t other = 0; other < args.size() && alone; other++) {
                    if (other != d && args[other].terms.count(term)) alone = false;
                }
                if (!alone || strides[d].defined()) continue;
                const std::string& loop = nest_.loops[level_of_declared_var_.at(var)].name;
                Expr coefficient = coefficient_of(index->coefficients, loop);
                strides[d] = ir::simplify(c > 0 ? coefficient : ir::make_zero(Int(32)) - coefficient);
            }
            TESSERA_USER_CHECK(strides[d].defined())
                << "The declaration of the tensor intrinsic " << in_.name << " reads " << operand
                << " with no variable of its own in dimension " << d << "; each dimension needs one.";
            Expr extent = ir::make_one(Int(32));
            for (const auto& [term, c] : args[d].terms) {
                const NestLoop& l = nest_.loops[level_of_declared_var_.at(term.as<ir::Variable>()->name)];
                extent = extent + (l.extent - 1) * int(std::abs(c));
            }
            extents[d] = ir::simplify(extent);
        }
        // Every loop must move through memory as the declaration says.
        Expr base = index->base;
        for (const NestLoop& l : nest_.loops)
            base = base + coefficient_of(index->coefficients, l.name) * l.min;
        for (size_t level = 0; level < nest_.loops.size(); level++) {
            Expr expected = ir::make_zero(Int(32));
            const std::string& var = in_.loops[level].var;
            for (size_t d = 0; d < args.size(); d++) {
                for (const auto& [term, c] : args[d].terms) {
                    if (term.as<ir::Variable>()->name == var) expected = expected + strides[d] * int(c);
                }
            }
            Expr difference =
                ir::simplify(coefficient_of(index->coefficients, nest_.loops[level].name) - expected);
            if (ir::is_const(difference) && !ir::is_const_zero(difference)) {
                mismatch("the loop " + nest_.loops[level].name + " moves through " + a.buffer + " by " +
                         ir::to_string(
                             ir::simplify(coefficient_of(index->coefficients, nest_.loops[level].name))) +
                         " elements, where the declaration's " + var + " moves through " + operand + " by " +
                         ir::to_string(ir::simplify(expected)) + ".");
            }
            if (!ir::is_const_zero(difference)) precondition_ = precondition_ && difference == 0;
        }
        for (size_t d = 0; d < args.size(); d++) base = base - strides[d] * int(args[d].constant);
        TensorOperandView v{a.buffer, type, ir::simplify(base), strides, extents};
        if (first) {
            result = v;
            first = false;
            continue;
        }
        bool same = v.buffer == result.buffer && ir::equal(v.base, result.base);
        for (size_t d = 0; same && d < strides.size(); d++) same = ir::equal(v.strides[d], result.strides[d]);
        if (!same)
            mismatch("the declaration reads " + operand + " as one operand, but the loops read two places.");
    }
    if (first) mismatch("the loops do not access " + operand + ".");
    return result;
}

// The conditions the guards make, split at && and without likely().
std::vector<Expr> Matcher::guard_conditions() const {
    std::vector<Expr> conditions, pending = nest_.guards;
    while (!pending.empty()) {
        Expr g = pending.back();
        pending.pop_back();
        g = ir::without_likely(g);
        if (const ir::And* a = g.as<ir::And>()) {
            pending.push_back(a->a);
            pending.push_back(a->b);
        } else {
            conditions.push_back(g);
        }
    }
    return conditions;
}

// A guard that ends a loop of the declaration's variable extent early is that loop's extent: the
// tail of a split reduction (ko * 256 + ki < depth) runs in the kernel, for what remains of it.
void Matcher::fold_guards_into_extents() {
    std::vector<Expr> kept;
    for (const Expr& g : guard_conditions()) {
        if (!fold_into_extent(g)) kept.push_back(g);
    }
    nest_.guards = kept;
}

bool Matcher::fold_into_extent(const Expr& guard) {
    // below < above, or below <= above.
    Expr below, above;
    bool strict = true;
    if (const ir::LT* lt = guard.as<ir::LT>()) below = lt->a, above = lt->b;
    if (const ir::LE* le = guard.as<ir::LE>()) below = le->a, above = le->b, strict = false;
    if (!below.defined() || below.type() != Int(32)) return false;
    std::optional<Affine> difference = affine(below - above);
    if (!difference) return false;
    // Exactly one loop moves it, by 1, and the declaration leaves that loop's extent open.
    std::optional<size_t> level;
    for (size_t i = 0; i < nest_.loops.size(); i++) {
        std::optional<int64_t> c =
            ir::as_const_int(ir::simplify(coefficient_of(difference->coefficients, nest_.loops[i].name)));
        if (!c) return false;
        if (*c == 0) continue;
        if (*c != 1 || level) return false;
        level = i;
    }
    if (!level || ir::is_const(in_.loops[*level].extent)) return false;
    // loop + base < 0: the loop ends before -base (or one later for <=).
    NestLoop& loop = nest_.loops[*level];
    Expr end = ir::make_zero(Int(32)) - difference->base + (strict ? 0 : 1);
    loop.extent = ir::simplify(max(min(loop.extent, end - loop.min), 0));
    return true;
}

// The guards hold over the whole tile where they hold at its worst corner.
Expr Matcher::whole_tile() {
    Expr all = ir::const_true();
    for (const Expr& g : guard_conditions()) {
        if (!uses_nest_var(g)) {
            all = all && g;
            continue;
        }
        // Normalized to below < above (or <=): the worst corner makes below - above largest.
        Expr below, above;
        if (const ir::LT* lt = g.as<ir::LT>()) below = lt->a, above = lt->b;
        if (const ir::LE* le = g.as<ir::LE>()) below = le->a, above = le->b;
        if (const ir::GT* gt = g.as<ir::GT>()) below = gt->b, above = gt->a;
        if (const ir::GE* ge = g.as<ir::GE>()) below = ge->b, above = ge->a;
        std::optional<Affine> difference;
        if (below.defined() && below.type() == Int(32)) difference = affine(below - above);
        TESSERA_USER_CHECK(difference)
            << where_ << ": the loops are guarded by " << g << ", which the tensor intrinsic " << in_.name
            << " cannot tell whole tiles by.";
        std::map<std::string, Expr> corner;
        for (const NestLoop& l : nest_.loops) {
            std::optional<int64_t> c =
                ir::as_const_int(ir::simplify(coefficient_of(difference->coefficients, l.name)));
            TESSERA_USER_CHECK(c) << where_ << ": the guard " << g << " moves with " << l.name
                                  << " by a step not known when compiling.";
            corner[l.name] = *c > 0 ? l.min + l.extent - 1 : l.min;
        }
        all = all && ir::substitute(corner, g);
    }
    return all;
}

// Simplification removes loops of one iteration; where the declaration has such a loop and the nest
// lacks it, a loop of one iteration at 0 stands in for it.
void Matcher::restore_single_iteration_loops() {
    std::vector<NestLoop> loops;
    size_t found = 0;
    for (size_t level = 0; level < in_.loops.size(); level++) {
        const size_t missing = in_.loops.size() - level - (nest_.loops.size() - found);
        if (missing > 0 && ir::is_const_one(in_.loops[level].extent) &&
            (found == nest_.loops.size() || !ir::is_const_one(ir::simplify(nest_.loops[found].extent)))) {
            loops.push_back({where_ + "." + in_.loops[level].var + ".single", ir::make_zero(Int(32)),
                             ir::make_one(Int(32))});
        } else if (found < nest_.loops.size()) {
            loops.push_back(nest_.loops[found++]);
        }
    }
    while (found < nest_.loops.size()) loops.push_back(nest_.loops[found++]);
    nest_.loops = loops;
}

TensorMatch Matcher::match() {
    if (nest_.loops.size() < in_.loops.size()) restore_single_iteration_loops();
    if (nest_.loops.size() != in_.loops.size()) {
        mismatch("the intrinsic replaces " + std::to_string(in_.loops.size()) + " loops, and there are " +
                 std::to_string(nest_.loops.size()) + ".");
    }
    fold_guards_into_extents();
    TensorMatch result;
    for (size_t level = 0; level < nest_.loops.size(); level++) {
        const NestLoop& l = nest_.loops[level];
        const lang::TensorLoop& declared = in_.loops[level];
        level_of_declared_var_[declared.var] = level;
        if (level > 0 && (uses_nest_var(l.min) || uses_nest_var(l.extent)))
            mismatch("the loop " + l.name + " has bounds that depend on the loops around it.");
        Expr extent = ir::simplify(l.extent);
        if (ir::is_const(declared.extent)) {
            if (!ir::equal(extent, declared.extent))
                mismatch("the loop " + l.name + " runs " + ir::to_string(extent) +
                         " times, where the declaration's " + declared.var + " runs " +
                         ir::to_string(declared.extent) + " times.");
        }
    }
    for (const std::string& p : in_.extent_params) {
        for (size_t level = 0; level < nest_.loops.size(); level++) {
            const ir::Variable* v = in_.loops[level].extent.as<ir::Variable>();
            if (v && v->name == p)
                result.binding.extent_values.push_back(ir::simplify(nest_.loops[level].extent));
        }
    }
    Expr declared_value = ir::simplify(in_.value);
    if (!match_value(declared_value, nest_.value))
        mismatch("the value stored differs from the declaration's (" + ir::to_string(declared_value) + ").");
    accesses_.push_back({in_.output.name, in_.output_args, nest_.buffer, in_.output.type, nest_.index});
    for (const Access& a : accesses_) {
        if (a.operand == in_.output.name && a.buffer != nest_.buffer)
            mismatch("the declaration reads " + in_.output.name + " where it writes, and the loops read " +
                     a.buffer + " but write " + nest_.buffer + ".");
    }
    for (const lang::TensorOperand& input : in_.inputs)
        result.binding.inputs.push_back(view(input.name, input.type));
    result.binding.output = view(in_.output.name, in_.output.type);
    result.whole_tile = whole_tile() && precondition_;
    return result;
}

}  // namespace

TensorMatch match_tensor_intrinsic(const ir::For* loop, const lang::TensorIntrinsicContents& intrinsic,
                                   const std::string& where) {
    return Matcher(loop, intrinsic, where).match();
}

}  // namespace tessera::lowering
