#include "ir/mutator.h"

#include <utility>

namespace tessera::ir {

Expr Mutator::mutate(const Expr& e) {
    if (!e.defined()) return e;
    switch (e.get()->kind) {
#define TESSERA_DISPATCH(T) \
    case IRKind::T: return visit(static_cast<const T*>(e.get()));
        TESSERA_FOR_EACH_EXPR(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
        default: return e;
    }
}

Stmt Mutator::mutate(const Stmt& s) {
    if (!s.defined()) return s;
    switch (s.get()->kind) {
#define TESSERA_DISPATCH(T) \
    case IRKind::T: return visit(static_cast<const T*>(s.get()));
        TESSERA_FOR_EACH_STMT(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
        default: return s;
    }
}

Expr Mutator::visit(const IntImm* op) { return handle_of(op); }
Expr Mutator::visit(const UIntImm* op) { return handle_of(op); }
Expr Mutator::visit(const FloatImm* op) { return handle_of(op); }
Expr Mutator::visit(const StringImm* op) { return handle_of(op); }
Expr Mutator::visit(const Variable* op) { return handle_of(op); }

Expr Mutator::visit(const Cast* op) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? handle_of(op) : Cast::make(op->type, std::move(v));
}

Expr Mutator::visit(const Reinterpret* op) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? handle_of(op) : Reinterpret::make(op->type, std::move(v));
}

#define TESSERA_MUTATE_BINARY(T)                                                                           \
    Expr Mutator::visit(const T* op) {                                                                     \
        Expr a = mutate(op->a), b = mutate(op->b);                                                         \
        return a.same_as(op->a) && b.same_as(op->b) ? handle_of(op) : T::make(std::move(a), std::move(b)); \
    }
TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_MUTATE_BINARY)
#undef TESSERA_MUTATE_BINARY

Expr Mutator::visit(const Not* op) {
    Expr a = mutate(op->a);
    return a.same_as(op->a) ? handle_of(op) : Not::make(std::move(a));
}

Expr Mutator::visit(const Select* op) {
    Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
        return handle_of(op);
    return Select::make(std::move(c), std::move(t), std::move(f));
}

Expr Mutator::visit(const Load* op) {
    Expr i = mutate(op->index);
    Expr p = op->predicate.defined() ? mutate(op->predicate) : Expr();
    if (i.same_as(op->index) && p.same_as(op->predicate)) return handle_of(op);
    return Load::make(op->type, op->name, std::move(i), std::move(p));
}

Expr Mutator::visit(const Ramp* op) {
    Expr b = mutate(op->base), s = mutate(op->stride);
    if (b.same_as(op->base) && s.same_as(op->stride)) return handle_of(op);
    return Ramp::make(std::move(b), std::move(s), op->lanes);
}

Expr Mutator::visit(const Broadcast* op) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? handle_of(op) : Broadcast::make(std::move(v), op->lanes);
}

Expr Mutator::visit(const Let* op) {
    // Mutate the chain front to back, then rebuild it back to front: no recursion per let.
    std::vector<std::pair<const Let*, Expr>> chain;
    const Let* let = op;
    while (true) {
        chain.emplace_back(let, mutate(let->value));
        const Let* next = let->body.as<Let>();
        if (!next) break;
        let = next;
    }
    Expr body = mutate(let->body);
    bool changed = !body.same_as(let->body);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const auto& [node, value] = *it;
        if (changed || !value.same_as(node->value)) {
            body = Let::make(node->name, value, body);
            changed = true;
        } else {
            body = handle_of(node);
        }
    }
    return body;
}

Expr Mutator::visit(const Call* op) {
    std::vector<Expr> args;
    bool changed = false;
    for (const Expr& a : op->args) {
        args.push_back(mutate(a));
        changed = changed || !args.back().same_as(a);
    }
    if (!changed) return handle_of(op);
    auto copy = std::make_shared<Call>(*op);
    copy->args = std::move(args);
    return Expr(std::shared_ptr<const ExprNode>(std::move(copy)));
}

Stmt Mutator::visit(const LetStmt* op) {
    std::vector<std::pair<const LetStmt*, Expr>> chain;
    const LetStmt* let = op;
    while (true) {
        chain.emplace_back(let, mutate(let->value));
        const LetStmt* next = let->body.as<LetStmt>();
        if (!next) break;
        let = next;
    }
    Stmt body = mutate(let->body);
    bool changed = !body.same_as(let->body);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const auto& [node, value] = *it;
        if (changed || !value.same_as(node->value)) {
            body = body.defined() ? LetStmt::make(node->name, value, body) : body;
            changed = true;
        } else {
            body = handle_of(node);
        }
    }
    return body;
}

Stmt Mutator::visit(const AssertStmt* op) {
    Expr c = mutate(op->condition), m = mutate(op->message);
    if (c.same_as(op->condition) && m.same_as(op->message)) return handle_of(op);
    return AssertStmt::make(std::move(c), std::move(m));
}

Stmt Mutator::visit(const Atomic* op) {
    Stmt b = mutate(op->body);
    if (b.same_as(op->body)) return handle_of(op);
    return b.defined() ? Atomic::make(op->producer, std::move(b)) : b;
}

Stmt Mutator::visit(const ProducerConsumer* op) {
    Stmt b = mutate(op->body);
    if (b.same_as(op->body)) return handle_of(op);
    return b.defined() ? ProducerConsumer::make(op->name, op->is_producer, std::move(b)) : b;
}

Stmt Mutator::visit(const For* op) {
    Expr mn = mutate(op->min), ext = mutate(op->extent);
    Stmt b = mutate(op->body);
    if (mn.same_as(op->min) && ext.same_as(op->extent) && b.same_as(op->body)) return handle_of(op);
    if (!b.defined()) return b;
    return For::make(op->name, std::move(mn), std::move(ext), op->for_kind, std::move(b));
}

Stmt Mutator::visit(const Store* op) {
    Expr v = mutate(op->value), i = mutate(op->index);
    Expr p = op->predicate.defined() ? mutate(op->predicate) : Expr();
    if (v.same_as(op->value) && i.same_as(op->index) && p.same_as(op->predicate)) return handle_of(op);
    return Store::make(op->name, std::move(v), std::move(i), std::move(p));
}

Stmt Mutator::visit(const Provide* op) {
    bool changed = false;
    std::vector<Expr> values, args;
    for (const Expr& v : op->values) {
        values.push_back(mutate(v));
        changed = changed || !values.back().same_as(v);
    }
    for (const Expr& a : op->args) {
        args.push_back(mutate(a));
        changed = changed || !args.back().same_as(a);
    }
    return changed ? Provide::make(op->name, std::move(values), std::move(args)) : handle_of(op);
}

Stmt Mutator::visit(const Allocate* op) {
    bool changed = false;
    std::vector<Expr> extents;
    for (const Expr& e : op->extents) {
        extents.push_back(mutate(e));
        changed = changed || !extents.back().same_as(e);
    }
    Stmt b = mutate(op->body);
    changed = changed || !b.same_as(op->body);
    if (!changed) return handle_of(op);
    return b.defined() ? Allocate::make(op->name, op->type, std::move(extents), std::move(b), op->memory_type)
                       : b;
}

Stmt Mutator::visit(const Free* op) { return handle_of(op); }

Stmt Mutator::visit(const Realize* op) {
    bool changed = false;
    Region bounds;
    for (const Range& r : op->bounds) {
        bounds.push_back({mutate(r.min), mutate(r.extent)});
        changed = changed || !bounds.back().min.same_as(r.min) || !bounds.back().extent.same_as(r.extent);
    }
    Stmt b = mutate(op->body);
    changed = changed || !b.same_as(op->body);
    if (!changed) return handle_of(op);
    return b.defined() ? Realize::make(op->name, op->types, std::move(bounds), std::move(b)) : b;
}

Stmt Mutator::visit(const Block* op) {
    bool changed = false;
    std::vector<Stmt> stmts;
    stmts.reserve(op->stmts.size());
    for (const Stmt& s : op->stmts) {
        stmts.push_back(mutate(s));
        changed = changed || !stmts.back().same_as(s);
    }
    return changed ? Block::make(std::move(stmts)) : handle_of(op);
}

Stmt Mutator::visit(const IfThenElse* op) {
    Expr c = mutate(op->condition);
    Stmt t = mutate(op->then_case), e = mutate(op->else_case);
    if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case))
        return handle_of(op);
    if (!t.defined() && !e.defined()) return Stmt();
    if (!t.defined()) return IfThenElse::make(Not::make(std::move(c)), std::move(e));
    return IfThenElse::make(std::move(c), std::move(t), std::move(e));
}

Stmt Mutator::visit(const Evaluate* op) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? handle_of(op) : Evaluate::make(std::move(v));
}

}  // namespace tessera::ir
