#include "ir/interval.h"

#include <cmath>
#include <limits>
#include <set>

#include "ir/equal.h"
#include "ir/interval_ends.h"
#include "ir/ir_util.h"
#include "ir/linear_form.h"
#include "ir/printer.h"
#include "ir/simplifier.h"
#include "ir/simplify.h"
#include "ir/visitor.h"

namespace tessera::ir {

namespace interval_ends {
namespace {

Int128 absolute(Int128 v) { return v < 0 ? -v : v; }

// The largest coefficient or constant of e's linear form: what folding constants into e can grow.
Int128 magnitude(const Expr& e) {
    if (auto k = as_exact_int(e)) return absolute(*k);
    if (!has_linear_form(e.type())) return 0;
    LinearForm f = linear_form_of(e);
    Int128 m = absolute(f.constant);
    for (const auto& [term, c] : f.terms) m = std::max(m, absolute(c));
    return m;
}

Int128 quarter_range(Type t) { return Int128(1) << (t.bits() - 2); }

// Ends of Int(32)/Int(64) intervals keep their constants below a quarter of the type's range, so
// that a sum or difference of two of them cannot wrap when folded.
bool is_small(const Expr& e) {
    return !assumes_no_overflow(e.type()) || magnitude(e) < quarter_range(e.type());
}

// A NaN end bounds nothing.
Expr checked(const Expr& e) {
    if (auto f = as_const_float(e); f && std::isnan(*f)) return Expr();
    return is_small(e) ? e : Expr();
}

class SizeLimit : public Visitor {
public:
    explicit SizeLimit(int limit) : budget(limit) {}
    int budget;

private:
#define TESSERA_COUNT(T)               \
    void visit(const T* op) override { \
        if (--budget < 0) return;      \
        Visitor::visit(op);            \
    }
    TESSERA_FOR_EACH_EXPR(TESSERA_COUNT)
#undef TESSERA_COUNT
};

}  // namespace

bool keeps_symbolic_ends(Type t) { return assumes_no_overflow(t) || t.is_float(); }

bool is_point(const Interval& i) {
    if (!i.min.defined() || !i.max.defined()) return false;
    if (i.min.same_as(i.max)) return true;
    auto a = as_exact_int(i.min), b = as_exact_int(i.max);
    return a && b && *a == *b;
}

Expr add(const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined() || !is_small(a) || !is_small(b)) return Expr();
    return checked(simplify_root(Add::make(a, b)));
}

Expr sub(const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined() || !is_small(a) || !is_small(b)) return Expr();
    return checked(simplify_root(Sub::make(a, b)));
}

Expr mul(const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined()) return Expr();
    if (assumes_no_overflow(a.type())) {
        auto ka = as_exact_int(a), kb = as_exact_int(b);
        // A constant factor scales every coefficient; two symbolic factors make a product term.
        if (ka || kb) {
            if ((ka ? absolute(*ka) * magnitude(b) : absolute(*kb) * magnitude(a)) >= quarter_range(a.type()))
                return Expr();
        } else if (!is_small(a) || !is_small(b)) {
            return Expr();
        }
    }
    return checked(simplify_root(Mul::make(a, b)));
}

Expr div(const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined()) return Expr();
    return checked(simplify_root(Div::make(a, b)));
}

Expr min_of_lower(const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined()) return Expr();
    return simplify_root(Min::make(a, b));
}

Expr min_of_upper(const Expr& a, const Expr& b) {
    if (!a.defined()) return b;
    if (!b.defined()) return a;
    return simplify_root(Min::make(a, b));
}

Expr max_of_lower(const Expr& a, const Expr& b) {
    if (!a.defined()) return b;
    if (!b.defined()) return a;
    return simplify_root(Max::make(a, b));
}

Expr max_of_upper(const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined()) return Expr();
    return simplify_root(Max::make(a, b));
}

Interval from_constant(const ConstantInterval& r, Type t) {
    const ConstantInterval all = ConstantInterval::of_type(t);
    const bool extremes_are_infinite = assumes_no_overflow(t);
    // (Exact ranges of partial sums may even lie wholly past the type; they bound nothing real.)
    Expr lo =
        extremes_are_infinite && r.min <= all.min ? Expr() : make_const(t, int64_t(std::min(r.min, all.max)));
    Expr hi =
        extremes_are_infinite && r.max >= all.max ? Expr() : make_const(t, int64_t(std::max(r.max, all.min)));
    return Interval(lo, hi);
}

bool larger_than(const Expr& e, int limit) {
    SizeLimit counter(limit);
    counter.include(e);
    return counter.budget < 0;
}

}  // namespace interval_ends

Interval interval_union(const Interval& a, const Interval& b) {
    return Interval(interval_ends::min_of_lower(a.min, b.min), interval_ends::max_of_upper(a.max, b.max));
}

Interval interval_intersection(const Interval& a, const Interval& b) {
    return Interval(interval_ends::max_of_lower(a.min, b.min), interval_ends::min_of_upper(a.max, b.max));
}

namespace {

// The constant ranges of a scope's variables, each derived from its interval's ends in turn; a
// variable whose interval refers back to itself spans its type.
class ConstantScopeBuilder {
public:
    explicit ConstantScopeBuilder(const std::map<std::string, Interval>& s) : scope(s) {
        lookup = [this](const std::string& name) { return of(name); };
    }

    std::optional<ConstantInterval> of(const std::string& name) {
        auto done = result.find(name);
        if (done != result.end()) return done->second;
        auto it = scope.find(name);
        if (it == scope.end() || deriving.count(name)) return std::nullopt;
        deriving.insert(name);
        std::optional<ConstantInterval> r = derive(it->second);
        deriving.erase(name);
        if (r) result[name] = *r;
        return r;
    }

    ConstantScope result;

private:
    const std::map<std::string, Interval>& scope;
    std::set<std::string> deriving;
    ConstantLookup lookup;

    std::optional<ConstantInterval> derive(const Interval& i) {
        const Expr& any_end = i.min.defined() ? i.min : i.max;
        if (!any_end.defined() || !any_end.type().element_of().is_int_or_uint()) return std::nullopt;
        ConstantInterval r = ConstantInterval::of_type(any_end.type().element_of());
        if (i.min.defined()) {
            if (auto lo = constant_bounds(i.min, lookup)) r.min = lo->min;
        }
        if (i.max.defined()) {
            if (auto hi = constant_bounds(i.max, lookup)) r.max = hi->max;
        }
        return r;
    }
};

}  // namespace

ConstantScope constant_scope(const std::map<std::string, Interval>& scope) {
    ConstantScopeBuilder builder(scope);
    for (const auto& [name, interval] : scope) builder.of(name);
    return std::move(builder.result);
}

namespace {

// What a condition says about the variables of a scope, gathered as new ends and then applied.
class Narrower {
public:
    Narrower(std::map<std::string, Interval>& s, Narrowing h) : scope(s), how(h) {}

    void learn(const Expr& cond, bool holds) {
        if (const Not* n = cond.as<Not>()) return learn(n->a, !holds);
        if (is_likely(cond)) {
            // A condition that usually holds (a GuardWithIf split's guard) leaves the old end the
            // likely one: loop partitioning then finds the iterations where the guard does not bind
            // and takes the old end there, e.g. a whole tile's bounds for the Funcs computed in it.
            const bool outer = likely_holds;
            likely_holds = holds && how == Narrowing::Intersect;
            learn(without_likely(cond), holds);
            likely_holds = outer;
            return;
        }
        if (const And* a = cond.as<And>(); a && holds) {
            learn(a->a, true);
            learn(a->b, true);
            return;
        }
        if (const Or* o = cond.as<Or>(); o && !holds) {
            learn(o->a, false);
            learn(o->b, false);
            return;
        }
        comparison(cond, holds);
    }

    std::vector<ScopeChange> changes;

private:
    std::map<std::string, Interval>& scope;
    Narrowing how;
    bool likely_holds = false;

    // Normalizes to "lhs - rhs OP 0" with OP one of <, <=, ==, then isolates each variable in scope.
    void comparison(const Expr& cond, bool holds) {
        Expr a, b;
        IRKind op;
        if (!as_comparison(cond, holds, a, b, op)) return;
        if (!assumes_no_overflow(a.type()) || !a.type().is_scalar()) return;
        std::optional<LinearForm> difference = exact_difference(a, b);
        if (!difference || !negatable(*difference)) return;
        const LinearForm& d = *difference;
        for (const auto& [term, c] : d.terms) {
            const Variable* v = term.as<Variable>();
            if (!v || (c != 1 && c != -1) || !scope.count(v->name)) continue;
            // c*v + rest OP 0, so v OP -rest (c == 1) or v OP' rest (c == -1, the order flips).
            LinearForm rest = d;
            rest.terms.erase(term);
            if (c == 1) rest = negated(rest);
            Interval r = bounds_of_expr(rest.to_expr(), scope);
            const int64_t strict = op == IRKind::LT ? 1 : 0;
            Expr upper =
                r.max.defined() ? simplify_root(Sub::make(r.max, make_const(a.type(), strict))) : Expr();
            Expr lower =
                r.min.defined() ? simplify_root(Add::make(r.min, make_const(a.type(), strict))) : Expr();
            if (c == 1 || op == IRKind::EQ) narrow(v->name, Expr(), upper);
            if (c == -1 || op == IRKind::EQ) narrow(v->name, lower, Expr());
        }
    }

    // Whether negating every coefficient and the constant stays exact.
    static bool negatable(const LinearForm& f) {
        const int64_t most_negative =
            f.type.bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (f.type.bits() - 1));
        if (f.constant == most_negative) return false;
        for (const auto& [term, c] : f.terms) {
            if (c == most_negative) return false;
        }
        return true;
    }

    static LinearForm negated(const LinearForm& f) {
        LinearForm r(f.type);
        r.add(f, -1);
        return r;
    }

    // cond (or its negation) as a OP b with OP in {<, <=, ==}.
    static bool as_comparison(const Expr& cond, bool holds, Expr& a, Expr& b, IRKind& op) {
        auto set = [&](const Expr& x, IRKind k, const Expr& y) {
            a = x;
            op = k;
            b = y;
            return true;
        };
        if (const LT* c = cond.as<LT>())
            return holds ? set(c->a, IRKind::LT, c->b) : set(c->b, IRKind::LE, c->a);
        if (const LE* c = cond.as<LE>())
            return holds ? set(c->a, IRKind::LE, c->b) : set(c->b, IRKind::LT, c->a);
        if (const GT* c = cond.as<GT>())
            return holds ? set(c->b, IRKind::LT, c->a) : set(c->a, IRKind::LE, c->b);
        if (const GE* c = cond.as<GE>())
            return holds ? set(c->b, IRKind::LE, c->a) : set(c->a, IRKind::LT, c->b);
        if (const EQ* c = cond.as<EQ>(); c && holds) return set(c->a, IRKind::EQ, c->b);
        if (const NE* c = cond.as<NE>(); c && !holds) return set(c->a, IRKind::EQ, c->b);
        return false;
    }

    void narrow(const std::string& name, Expr lower, Expr upper) {
        // An end written in terms of the variable itself would be read as about the variable.
        if (lower.defined() && uses_var(lower, name)) lower = Expr();
        if (upper.defined() && uses_var(upper, name)) upper = Expr();
        Interval& i = scope[name];
        Interval narrowed = i;
        if (lower.defined()) narrowed.min = pick(i.min, lower, /*lower=*/true);
        if (upper.defined()) narrowed.max = pick(i.max, upper, /*lower=*/false);
        if (narrowed.min.same_as(i.min) && narrowed.max.same_as(i.max)) return;
        changes.push_back({name, i});
        i = narrowed;
    }

    Expr pick(const Expr& old_end, const Expr& new_end, bool lower) {
        if (!old_end.defined()) return new_end;
        const bool both_constant = as_exact_int(old_end) && as_exact_int(new_end);
        if (how == Narrowing::PreferCondition && !both_constant) return new_end;
        const Expr tighter = lower ? interval_ends::max_of_lower(old_end, new_end)
                                   : interval_ends::min_of_upper(old_end, new_end);
        if (!likely_holds || both_constant) return tighter;
        // Where the simplifier could not tell which end is tighter, the old one is the likely one.
        if (equal(tighter, old_end) || equal(tighter, new_end)) return tighter;
        const Expr likely_old = Call::make_intrinsic(old_end.type(), Intrinsic::Likely, {old_end});
        return lower ? Max::make(likely_old, new_end) : Min::make(likely_old, new_end);
    }
};

}  // namespace

std::vector<ScopeChange> narrow_scope(const Expr& condition, bool holds,
                                      std::map<std::string, Interval>& scope, Narrowing how) {
    if (!condition.defined() || !condition.type().is_scalar()) return {};
    Narrower n(scope, how);
    n.learn(condition, holds);
    return std::move(n.changes);
}

void restore_scope(const std::vector<ScopeChange>& changes, std::map<std::string, Interval>& scope) {
    for (auto it = changes.rbegin(); it != changes.rend(); ++it) scope[it->name] = it->previous;
}

std::ostream& operator<<(std::ostream& out, const Interval& i) {
    out << "[";
    if (i.min.defined())
        out << i.min;
    else
        out << "-inf";
    out << ", ";
    if (i.max.defined())
        out << i.max;
    else
        out << "+inf";
    return out << "]";
}

}  // namespace tessera::ir
