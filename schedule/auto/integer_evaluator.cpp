#include "schedule/auto/integer_evaluator.h"

#include <unordered_map>

namespace tessera::autoschedule {
namespace {

using Values = std::map<std::string, int64_t>;
using Result = std::optional<int64_t>;
using Memo = std::unordered_map<const void*, Result>;

Result evaluate(const Expr& e, const Values& values, Memo* memo);

int64_t floor_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    const int64_t q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floor_mod(int64_t a, int64_t b) {
    if (b == 0) return 0;
    const int64_t r = a % b;
    return r < 0 ? r + (b < 0 ? -b : b) : r;
}

template <typename Node, typename Op>
Result binary(const Expr& e, const Values& values, Memo* memo, Op op) {
    const Node* n = e.as<Node>();
    Result a = evaluate(n->a, values, memo);
    if (!a) return std::nullopt;
    Result b = evaluate(n->b, values, memo);
    if (!b) return std::nullopt;
    return op(*a, *b);
}

Result evaluate_node(const Expr& e, const Values& values, Memo* memo) {
    if (!e.defined()) return std::nullopt;
    if (const auto* i = e.as<ir::IntImm>()) return i->value;
    if (const auto* u = e.as<ir::UIntImm>()) return int64_t(u->value);
    if (const auto* v = e.as<ir::Variable>()) {
        auto it = values.find(v->name);
        return it == values.end() ? std::nullopt : Result(it->second);
    }
    if (const auto* c = e.as<ir::Cast>()) {
        if (!c->type.is_int_or_uint() && !c->type.is_bool()) return std::nullopt;
        if (!c->value.type().is_int_or_uint() && !c->value.type().is_bool()) return std::nullopt;
        return evaluate(c->value, values, memo);
    }
    if (e.as<ir::Add>()) return binary<ir::Add>(e, values, memo, [](int64_t a, int64_t b) { return a + b; });
    if (e.as<ir::Sub>()) return binary<ir::Sub>(e, values, memo, [](int64_t a, int64_t b) { return a - b; });
    if (e.as<ir::Mul>()) return binary<ir::Mul>(e, values, memo, [](int64_t a, int64_t b) { return a * b; });
    if (e.as<ir::Div>()) return binary<ir::Div>(e, values, memo, floor_div);
    if (e.as<ir::Mod>()) return binary<ir::Mod>(e, values, memo, floor_mod);
    if (e.as<ir::Min>())
        return binary<ir::Min>(e, values, memo, [](int64_t a, int64_t b) { return std::min(a, b); });
    if (e.as<ir::Max>())
        return binary<ir::Max>(e, values, memo, [](int64_t a, int64_t b) { return std::max(a, b); });
    if (e.as<ir::EQ>())
        return binary<ir::EQ>(e, values, memo, [](int64_t a, int64_t b) { return int64_t(a == b); });
    if (e.as<ir::NE>())
        return binary<ir::NE>(e, values, memo, [](int64_t a, int64_t b) { return int64_t(a != b); });
    if (e.as<ir::LT>())
        return binary<ir::LT>(e, values, memo, [](int64_t a, int64_t b) { return int64_t(a < b); });
    if (e.as<ir::LE>())
        return binary<ir::LE>(e, values, memo, [](int64_t a, int64_t b) { return int64_t(a <= b); });
    if (e.as<ir::GT>())
        return binary<ir::GT>(e, values, memo, [](int64_t a, int64_t b) { return int64_t(a > b); });
    if (e.as<ir::GE>())
        return binary<ir::GE>(e, values, memo, [](int64_t a, int64_t b) { return int64_t(a >= b); });
    if (e.as<ir::And>())
        return binary<ir::And>(e, values, memo, [](int64_t a, int64_t b) { return int64_t(a && b); });
    if (e.as<ir::Or>())
        return binary<ir::Or>(e, values, memo, [](int64_t a, int64_t b) { return int64_t(a || b); });
    if (const auto* n = e.as<ir::Not>()) {
        Result a = evaluate(n->a, values, memo);
        return a ? Result(int64_t(!*a)) : std::nullopt;
    }
    if (const auto* s = e.as<ir::Select>()) {
        Result c = evaluate(s->condition, values, memo);
        if (!c) return std::nullopt;
        return evaluate(*c ? s->true_value : s->false_value, values, memo);
    }
    if (const auto* l = e.as<ir::Let>()) {
        Result v = evaluate(l->value, values, memo);
        if (!v) return std::nullopt;
        Values inner = values;
        inner[l->name] = *v;
        // The body sees other values: what was remembered outside does not hold inside.
        Memo inner_memo;
        return evaluate(l->body, inner, &inner_memo);
    }
    return std::nullopt;
}

// Subexpressions shared in a DAG (as bounds inference builds them) are evaluated once.
Result evaluate(const Expr& e, const Values& values, Memo* memo) {
    if (!e.defined()) return std::nullopt;
    auto [it, fresh] = memo->try_emplace(e.get());
    if (fresh) {
        Result r = evaluate_node(e, values, memo);
        // The map may have grown (and moved its entries) while the subexpressions were evaluated.
        (*memo)[e.get()] = r;
        return r;
    }
    return it->second;
}

}  // namespace

std::optional<int64_t> evaluate_integer(const Expr& e, const Values& values) {
    Memo memo;
    return evaluate(e, values, &memo);
}

}  // namespace tessera::autoschedule
