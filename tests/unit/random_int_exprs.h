#pragma once
// Random integer expressions and a reference evaluator written independently of the compiler, with
// the language's semantics: integers wrap at their width, division and modulo are Euclidean, and a
// zero divisor gives zero. Shared by the randomized simplifier and interval tests.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ir/ir_util.h"

namespace tessera::test {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

using ir::Expr;

inline int64_t wrap_to(Type t, int128 v) {
    const int bits = t.bits();
    const uint128 modulus = (uint128)1 << bits;
    uint128 u = (uint128)v % modulus;  // v mod 2^bits, as two's complement does
    if (t.is_int() && u >= modulus / 2) return int64_t(int128(u) - int128(modulus));
    return int64_t(u);
}

inline int64_t floor_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    // Euclid: a == q * b + r with 0 <= r < |b|.
    int64_t r = a % b;
    if (r < 0) r += b < 0 ? -b : b;
    return (a - r) / b;
}

inline int64_t floor_mod(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t r = a % b;
    if (r < 0) r += b < 0 ? -b : b;
    return r;
}

class Evaluator {
public:
    std::map<std::string, int64_t> env;
    // Whether an Int(32) operation left the type's range, which the compiler assumes never happens.
    bool overflowed = false;
    // The value of a Func or image call at a site; absent, calls are not expected.
    std::function<int64_t(const ir::Call*, const std::vector<int64_t>&)> on_call;

    // f() evaluated with name bound to value.
    template <typename F>
    auto with(const std::string& name, int64_t value, F f) {
        auto old = env.find(name);
        const bool had = old != env.end();
        const int64_t saved = had ? old->second : 0;
        env[name] = value;
        auto restore = [&] {
            if (had)
                env[name] = saved;
            else
                env.erase(name);
        };
        if constexpr (std::is_void_v<decltype(f())>) {
            f();
            restore();
        } else {
            auto r = f();
            restore();
            return r;
        }
    }

    int64_t eval(const Expr& e) {
        using namespace ir;
        const Type t = e.type();
        if (const IntImm* i = e.as<IntImm>()) return i->value;
        if (const UIntImm* u = e.as<UIntImm>()) return int64_t(u->value);
        if (const Variable* v = e.as<Variable>()) return env.at(v->name);
        if (const Cast* c = e.as<Cast>()) return wrap_to(t, eval(c->value));
        if (const Add* op = e.as<Add>()) return arith(t, int128(eval(op->a)) + eval(op->b));
        if (const Sub* op = e.as<Sub>()) return arith(t, int128(eval(op->a)) - eval(op->b));
        if (const Mul* op = e.as<Mul>()) return arith(t, int128(eval(op->a)) * eval(op->b));
        if (const Div* op = e.as<Div>()) return arith(t, floor_div(eval(op->a), eval(op->b)));
        if (const Mod* op = e.as<Mod>()) return arith(t, floor_mod(eval(op->a), eval(op->b)));
        if (const Min* op = e.as<Min>()) return std::min(eval(op->a), eval(op->b));
        if (const Max* op = e.as<Max>()) return std::max(eval(op->a), eval(op->b));
        if (const EQ* op = e.as<EQ>()) return eval(op->a) == eval(op->b);
        if (const NE* op = e.as<NE>()) return eval(op->a) != eval(op->b);
        if (const LT* op = e.as<LT>()) return eval(op->a) < eval(op->b);
        if (const LE* op = e.as<LE>()) return eval(op->a) <= eval(op->b);
        if (const GT* op = e.as<GT>()) return eval(op->a) > eval(op->b);
        if (const GE* op = e.as<GE>()) return eval(op->a) >= eval(op->b);
        if (const And* op = e.as<And>()) return eval(op->a) && eval(op->b);
        if (const Or* op = e.as<Or>()) return eval(op->a) || eval(op->b);
        if (const Not* op = e.as<Not>()) return !eval(op->a);
        if (const Select* op = e.as<Select>())
            return eval(op->condition) ? eval(op->true_value) : eval(op->false_value);
        if (const Let* op = e.as<Let>()) return let(op);
        if (const Call* op = e.as<Call>(); op && on_call) {
            std::vector<int64_t> args;
            for (const Expr& a : op->args) args.push_back(eval(a));
            return wrap_to(t, on_call(op, args));
        }
        throw std::logic_error("evaluator: unexpected node");
    }

private:
    int64_t arith(Type t, int128 exact) {
        if (t == Int(32) && (exact < INT32_MIN || exact > INT32_MAX)) overflowed = true;
        return wrap_to(t, exact);
    }

    int64_t let(const ir::Let* op) {
        int64_t value = eval(op->value);
        return with(op->name, value, [&] { return eval(op->body); });
    }
};

// Runs loop nests of For, LetStmt, IfThenElse, Block, Provide, Store and Evaluate, recording every
// site of a Func or image call and of a Provide, and every Store.
class Interpreter {
public:
    Evaluator ev;
    std::vector<std::pair<std::string, std::vector<int64_t>>> sites;
    std::vector<std::tuple<std::string, int64_t, int64_t>> stores;

    Interpreter() {
        ev.on_call = [this](const ir::Call* op, const std::vector<int64_t>& args) {
            sites.emplace_back(op->name, args);
            int64_t h = 17;
            for (int64_t a : args) h = h * 31 + a;
            return h;
        };
    }

    void run(const ir::Stmt& s) {
        using namespace ir;
        if (!s.defined()) return;
        if (const Block* b = s.as<Block>()) {
            for (const Stmt& x : b->stmts) run(x);
        } else if (const For* f = s.as<For>()) {
            const int64_t min = ev.eval(f->min), extent = ev.eval(f->extent);
            if (min + extent - 1 > INT32_MAX) ev.overflowed = true;  // the loop variable would wrap
            for (int64_t i = min; i < min + extent; i++) ev.with(f->name, i, [&] { run(f->body); });
        } else if (const LetStmt* l = s.as<LetStmt>()) {
            const int64_t v = ev.eval(l->value);
            ev.with(l->name, v, [&] { run(l->body); });
        } else if (const IfThenElse* i = s.as<IfThenElse>()) {
            run(ev.eval(i->condition) ? i->then_case : i->else_case);
        } else if (const Provide* p = s.as<Provide>()) {
            std::vector<int64_t> args;
            for (const Expr& a : p->args) args.push_back(ev.eval(a));
            for (const Expr& v : p->values) ev.eval(v);
            sites.emplace_back(p->name, args);
        } else if (const Store* st = s.as<Store>()) {
            stores.emplace_back(st->name, ev.eval(st->index), ev.eval(st->value));
        } else if (const Evaluate* e = s.as<Evaluate>()) {
            ev.eval(e->value);
        } else {
            throw std::logic_error("interpreter: unexpected statement");
        }
    }
};

// Expressions over the variables x, y and z of each type, with constants at the types' edges.
class RandomExprs {
public:
    explicit RandomExprs(uint32_t seed) : rng(seed) {}
    std::mt19937 rng;

    static std::vector<Type> types() { return {Int(32), Int(8), UInt(8), UInt(16)}; }
    static std::string var_name(const std::string& base, Type t) { return base + "_" + type_name(t); }
    static Expr var(const std::string& base, Type t) { return ir::Variable::make(t, var_name(base, t)); }

    int pick(int n) { return int(rng() % unsigned(n)); }
    Type random_type() { return types()[pick(4)]; }

    // Whether Int(32) constants include values near the type's extremes (expressions then overflow
    // more often, and those samples are skipped).
    bool big_constants = false;

    int64_t random_constant(Type t) {
        static const std::vector<int64_t> big = {INT32_MAX, INT32_MIN,  INT32_MAX - 1, INT32_MIN + 1,
                                                 1 << 30,   -(1 << 30), 65535};
        if (t == Int(32) && big_constants && pick(4) == 0) return big[pick(int(big.size()))];
        static const std::vector<int64_t> i32 = {0, 1,  -1, 2,   -2,   3,    -3,   4,
                                                 7, -8, 16, 100, -100, 1000, -4096};
        static const std::vector<int64_t> i8 = {0, 1, -1, 2, -2, 3, 7, -8, 16, 100, -100, 127, -128};
        static const std::vector<int64_t> u8 = {0, 1, 2, 3, 4, 7, 16, 100, 128, 200, 255};
        static const std::vector<int64_t> u16 = {0, 1, 2, 3, 7, 16, 255, 1000, 40000, 65535};
        const std::vector<int64_t>& pool = t == Int(32) ? i32 : t == Int(8) ? i8 : t == UInt(8) ? u8 : u16;
        return pool[pick(int(pool.size()))];
    }

    // Int(32) values stay small enough that most expressions do not overflow.
    int64_t random_value(Type t) {
        if (t == Int(32)) return pick(8) == 0 ? pick(20001) - 10000 : pick(41) - 20;
        return wrap_to(t, int64_t(rng()));
    }

    Expr leaf(Type t) {
        if (pick(3) == 0) return ir::make_const(t, random_constant(t));
        static const char* names[] = {"x", "y", "z"};
        return var(names[pick(3)], t);
    }

    Expr expr(Type t, int depth) {
        using namespace ir;
        if (depth <= 0 || pick(5) == 0) return leaf(t);
        auto sub = [&] { return expr(t, depth - 1); };
        switch (pick(11)) {
            case 0: return Add::make(sub(), sub());
            case 1: return Sub::make(sub(), sub());
            case 2: return Mul::make(sub(), pick(2) ? make_const(t, random_constant(t)) : sub());
            case 3: return Div::make(sub(), pick(2) ? make_const(t, random_constant(t)) : sub());
            case 4: return Mod::make(sub(), pick(2) ? make_const(t, random_constant(t)) : sub());
            case 5: return Min::make(sub(), sub());
            case 6: return Max::make(sub(), sub());
            case 7: return Select::make(condition(t, depth - 1), sub(), sub());
            case 8: {
                Type from = random_type();
                return Cast::make(t, expr(from, depth - 1));
            }
            case 9: {
                // A let whose name shadows a variable now and then.
                const std::string name =
                    pick(3) == 0 ? var_name("x", t) : "t" + std::to_string(pick(3)) + "_" + type_name(t);
                return Let::make(name, sub(), expr_with(t, depth - 1, name));
            }
            default: return Add::make(Mul::make(sub(), make_const(t, random_constant(t))), sub());
        }
    }

    Expr condition(Type t, int depth) {
        using namespace ir;
        auto sub = [&] { return expr(t, depth); };
        switch (pick(9)) {
            case 0: return EQ::make(sub(), sub());
            case 1: return NE::make(sub(), sub());
            case 2: return LT::make(sub(), sub());
            case 3: return LE::make(sub(), sub());
            case 4: return GT::make(sub(), sub());
            case 5: return GE::make(sub(), sub());
            case 6: return And::make(condition(t, depth - 1), condition(t, depth - 1));
            case 7: return Or::make(condition(t, depth - 1), condition(t, depth - 1));
            default: return Not::make(condition(t, depth - 1));
        }
    }

private:
    // An expression that uses the let-bound `name` now and then.
    Expr expr_with(Type t, int depth, const std::string& name) {
        Expr e = expr(t, depth);
        if (pick(2)) e = ir::Add::make(e, ir::Variable::make(t, name));
        return e;
    }
};

}  // namespace tessera::test
