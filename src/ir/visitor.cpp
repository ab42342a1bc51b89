#include "ir/visitor.h"

namespace tessera::ir {

void Visitor::include(const Expr& e) {
    if (!e.defined()) return;
    switch (IRKind(e.get()->kind)) {
#define TESSERA_DISPATCH(T) \
    case IRKind::T: visit(static_cast<const T*>(e.get())); break;
        TESSERA_FOR_EACH_EXPR(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
        default: break;
    }
}

void Visitor::include(const Stmt& s) {
    if (!s.defined()) return;
    switch (s.get()->kind) {
#define TESSERA_DISPATCH(T) \
    case IRKind::T: visit(static_cast<const T*>(s.get())); break;
        TESSERA_FOR_EACH_STMT(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
        default: break;
    }
}

void Visitor::visit(const IntImm*) {}
void Visitor::visit(const UIntImm*) {}
void Visitor::visit(const FloatImm*) {}
void Visitor::visit(const StringImm*) {}
void Visitor::visit(const Cast* op) { include(op->value); }
void Visitor::visit(const Reinterpret* op) { include(op->value); }
void Visitor::visit(const Variable*) {}
#define TESSERA_VISIT_BINARY(T)        \
    void Visitor::visit(const T* op) { \
        include(op->a);                \
        include(op->b);                \
    }
TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_VISIT_BINARY)
#undef TESSERA_VISIT_BINARY
void Visitor::visit(const Not* op) { include(op->a); }
void Visitor::visit(const Select* op) {
    include(op->condition);
    include(op->true_value);
    include(op->false_value);
}
void Visitor::visit(const Load* op) {
    include(op->index);
    if (op->predicate.defined()) include(op->predicate);
}
void Visitor::visit(const Ramp* op) {
    include(op->base);
    include(op->stride);
}
void Visitor::visit(const Broadcast* op) { include(op->value); }
void Visitor::visit(const Let* op) {
    // Walk the chain of lets without recursing once per let.
    const Let* let = op;
    while (true) {
        include(let->value);
        const Let* next = let->body.as<Let>();
        if (!next) break;
        let = next;
    }
    include(let->body);
}
void Visitor::visit(const Call* op) {
    for (const Expr& a : op->args) include(a);
}

void Visitor::visit(const LetStmt* op) {
    const LetStmt* let = op;
    while (true) {
        include(let->value);
        const LetStmt* next = let->body.as<LetStmt>();
        if (!next) break;
        let = next;
    }
    include(let->body);
}
void Visitor::visit(const AssertStmt* op) {
    include(op->condition);
    include(op->message);
}
void Visitor::visit(const ProducerConsumer* op) { include(op->body); }
void Visitor::visit(const For* op) {
    include(op->min);
    include(op->extent);
    include(op->body);
}
void Visitor::visit(const Store* op) {
    include(op->value);
    include(op->index);
    if (op->predicate.defined()) include(op->predicate);
}
void Visitor::visit(const Provide* op) {
    for (const Expr& v : op->values) include(v);
    for (const Expr& a : op->args) include(a);
}
void Visitor::visit(const Allocate* op) {
    for (const Expr& e : op->extents) include(e);
    include(op->body);
}
void Visitor::visit(const Free*) {}
void Visitor::visit(const Realize* op) {
    for (const Range& r : op->bounds) {
        include(r.min);
        include(r.extent);
    }
    include(op->body);
}
void Visitor::visit(const Block* op) {
    for (const Stmt& s : op->stmts) include(s);
}
void Visitor::visit(const IfThenElse* op) {
    include(op->condition);
    include(op->then_case);
    include(op->else_case);
}
void Visitor::visit(const Evaluate* op) { include(op->value); }

void Visitor::visit(const Atomic* op) { include(op->body); }

}  // namespace tessera::ir
