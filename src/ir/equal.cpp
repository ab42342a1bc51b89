#include "ir/equal.h"

#include <bit>
#include <functional>

#include "ir/node_list.h"

namespace tessera::ir {
namespace {

template <typename T>
int order(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}

// Pointers order by address: only reached when everything with a stable order is equal.
template <typename T>
int order_pointers(const std::shared_ptr<T>& a, const std::shared_ptr<T>& b) {
    if (a == b) return 0;
    return std::less<const T*>()(a.get(), b.get()) ? -1 : 1;
}

int order_types(Type a, Type b) {
    if (int c = order(int(a.code()), int(b.code()))) return c;
    if (int c = order(a.bits(), b.bits())) return c;
    return order(a.lanes(), b.lanes());
}

class Comparer {
public:
    int exprs(const Expr& a, const Expr& b) { return exprs(a.get(), b.get()); }

    int stmts(const Stmt& a, const Stmt& b) {
        const StmtNode *x = a.get(), *y = b.get();
        // Walk LetStmt chains by iteration: they can be thousands long.
        while (x != y && x && y && x->kind == IRKind::LetStmt && y->kind == IRKind::LetStmt) {
            auto *lx = static_cast<const LetStmt*>(x), *ly = static_cast<const LetStmt*>(y);
            if (int c = order(lx->name, ly->name)) return c;
            if (int c = exprs(lx->value, ly->value)) return c;
            x = lx->body.get();
            y = ly->body.get();
        }
        if (x == y) return 0;
        if (!x || !y) return x ? 1 : -1;
        if (int c = order(int(x->kind), int(y->kind))) return c;
        return stmt_fields(x, y);
    }

private:
    int exprs(const ExprNode* x, const ExprNode* y) {
        // Let chains iteratively, like LetStmt chains.
        while (x != y && x && y && x->kind == IRKind::Let && y->kind == IRKind::Let) {
            auto *lx = static_cast<const Let*>(x), *ly = static_cast<const Let*>(y);
            if (int c = order_types(x->type, y->type)) return c;
            if (int c = order(lx->name, ly->name)) return c;
            if (int c = exprs(lx->value, ly->value)) return c;
            x = lx->body.get();
            y = ly->body.get();
        }
        if (x == y) return 0;
        if (!x || !y) return x ? 1 : -1;
        if (int c = order(int(x->kind), int(y->kind))) return c;
        if (int c = order_types(x->type, y->type)) return c;
        return expr_fields(x, y);
    }

    int lists(const std::vector<Expr>& a, const std::vector<Expr>& b) {
        if (int c = order(a.size(), b.size())) return c;
        for (size_t i = 0; i < a.size(); i++) {
            if (int c = exprs(a[i], b[i])) return c;
        }
        return 0;
    }

    template <typename T>
    static const T* as(const ExprNode* n) {
        return static_cast<const T*>(n);
    }

    template <typename T>
    int binary(const ExprNode* x, const ExprNode* y) {
        if (int c = exprs(as<T>(x)->a, as<T>(y)->a)) return c;
        return exprs(as<T>(x)->b, as<T>(y)->b);
    }

    // Same kind and type: compare what the kind holds.
    int expr_fields(const ExprNode* x, const ExprNode* y) {
        switch (x->kind) {
            case IRKind::IntImm: return order(as<IntImm>(x)->value, as<IntImm>(y)->value);
            case IRKind::UIntImm: return order(as<UIntImm>(x)->value, as<UIntImm>(y)->value);
            case IRKind::FloatImm:
                return order(std::bit_cast<uint64_t>(as<FloatImm>(x)->value),
                             std::bit_cast<uint64_t>(as<FloatImm>(y)->value));
            case IRKind::StringImm: return order(as<StringImm>(x)->value, as<StringImm>(y)->value);
            case IRKind::Cast: return exprs(as<Cast>(x)->value, as<Cast>(y)->value);
            case IRKind::Reinterpret: return exprs(as<Reinterpret>(x)->value, as<Reinterpret>(y)->value);
            case IRKind::Variable: return variables(as<Variable>(x), as<Variable>(y));
#define TESSERA_COMPARE_BINARY(T) \
    case IRKind::T: return binary<T>(x, y);
                TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_COMPARE_BINARY)
#undef TESSERA_COMPARE_BINARY
            case IRKind::Not: return exprs(as<Not>(x)->a, as<Not>(y)->a);
            case IRKind::Select: return selects(as<Select>(x), as<Select>(y));
            case IRKind::Load: {
                if (int c = order(as<Load>(x)->name, as<Load>(y)->name)) return c;
                if (int c = exprs(as<Load>(x)->predicate, as<Load>(y)->predicate)) return c;
                return exprs(as<Load>(x)->index, as<Load>(y)->index);
            }
            case IRKind::Ramp: {
                const Ramp *a = as<Ramp>(x), *b = as<Ramp>(y);
                if (int c = exprs(a->base, b->base)) return c;
                return exprs(a->stride, b->stride);
            }
            case IRKind::Broadcast: return exprs(as<Broadcast>(x)->value, as<Broadcast>(y)->value);
            case IRKind::Call: return calls(as<Call>(x), as<Call>(y));
            default: return 0;  // Let is handled by the caller's loop
        }
    }

    int variables(const Variable* a, const Variable* b) {
        if (int c = order(a->name, b->name)) return c;
        if (int c = order(int(a->var_kind), int(b->var_kind))) return c;
        return order_pointers(a->param, b->param);
    }

    int selects(const Select* a, const Select* b) {
        if (int c = exprs(a->condition, b->condition)) return c;
        if (int c = exprs(a->true_value, b->true_value)) return c;
        return exprs(a->false_value, b->false_value);
    }

    int calls(const Call* a, const Call* b) {
        if (int c = order(a->name, b->name)) return c;
        if (int c = order(int(a->call_type), int(b->call_type))) return c;
        if (int c = order(int(a->intrinsic), int(b->intrinsic))) return c;
        if (int c = order(a->value_index, b->value_index)) return c;
        if (int c = lists(a->args, b->args)) return c;
        if (int c = order_pointers(a->function(), b->function())) return c;
        if (int c = order_pointers(a->image, b->image)) return c;
        return order_pointers(a->param, b->param);
    }

    template <typename T>
    static const T* as_stmt(const StmtNode* n) {
        return static_cast<const T*>(n);
    }

    int stmt_fields(const StmtNode* x, const StmtNode* y) {
        switch (x->kind) {
            case IRKind::AssertStmt: {
                auto *a = as_stmt<AssertStmt>(x), *b = as_stmt<AssertStmt>(y);
                if (int c = exprs(a->condition, b->condition)) return c;
                return exprs(a->message, b->message);
            }
            case IRKind::Atomic: {
                auto *a = as_stmt<Atomic>(x), *b = as_stmt<Atomic>(y);
                if (int c = order(a->producer, b->producer)) return c;
                return stmts(a->body, b->body);
            }
            case IRKind::ProducerConsumer: {
                auto *a = as_stmt<ProducerConsumer>(x), *b = as_stmt<ProducerConsumer>(y);
                if (int c = order(a->name, b->name)) return c;
                if (int c = order(a->is_producer, b->is_producer)) return c;
                return stmts(a->body, b->body);
            }
            case IRKind::For: return loops(as_stmt<For>(x), as_stmt<For>(y));
            case IRKind::Store: {
                auto *a = as_stmt<Store>(x), *b = as_stmt<Store>(y);
                if (int c = order(a->name, b->name)) return c;
                if (int c = exprs(a->value, b->value)) return c;
                if (int c = exprs(a->predicate, b->predicate)) return c;
                return exprs(a->index, b->index);
            }
            case IRKind::Provide: {
                auto *a = as_stmt<Provide>(x), *b = as_stmt<Provide>(y);
                if (int c = order(a->name, b->name)) return c;
                if (int c = lists(a->values, b->values)) return c;
                return lists(a->args, b->args);
            }
            case IRKind::Allocate: return allocates(as_stmt<Allocate>(x), as_stmt<Allocate>(y));
            case IRKind::Free: return order(as_stmt<Free>(x)->name, as_stmt<Free>(y)->name);
            case IRKind::Realize: return realizes(as_stmt<Realize>(x), as_stmt<Realize>(y));
            case IRKind::Block: {
                auto *a = as_stmt<Block>(x), *b = as_stmt<Block>(y);
                if (int c = order(a->stmts.size(), b->stmts.size())) return c;
                for (size_t i = 0; i < a->stmts.size(); i++) {
                    if (int c = stmts(a->stmts[i], b->stmts[i])) return c;
                }
                return 0;
            }
            case IRKind::IfThenElse: {
                auto *a = as_stmt<IfThenElse>(x), *b = as_stmt<IfThenElse>(y);
                if (int c = exprs(a->condition, b->condition)) return c;
                if (int c = stmts(a->then_case, b->then_case)) return c;
                return stmts(a->else_case, b->else_case);
            }
            case IRKind::Evaluate: return exprs(as_stmt<Evaluate>(x)->value, as_stmt<Evaluate>(y)->value);
            default: return 0;  // LetStmt is handled by the caller's loop
        }
    }

    int loops(const For* a, const For* b) {
        if (int c = order(a->name, b->name)) return c;
        if (int c = order(int(a->for_kind), int(b->for_kind))) return c;
        if (int c = exprs(a->min, b->min)) return c;
        if (int c = exprs(a->extent, b->extent)) return c;
        return stmts(a->body, b->body);
    }

    int allocates(const Allocate* a, const Allocate* b) {
        if (int c = order(a->name, b->name)) return c;
        if (int c = order_types(a->type, b->type)) return c;
        if (int c = lists(a->extents, b->extents)) return c;
        if (a->memory_type != b->memory_type) return a->memory_type < b->memory_type ? -1 : 1;
        return stmts(a->body, b->body);
    }

    int realizes(const Realize* a, const Realize* b) {
        if (int c = order(a->name, b->name)) return c;
        if (int c = order(a->types.size(), b->types.size())) return c;
        for (size_t i = 0; i < a->types.size(); i++) {
            if (int c = order_types(a->types[i], b->types[i])) return c;
        }
        if (int c = order(a->bounds.size(), b->bounds.size())) return c;
        for (size_t i = 0; i < a->bounds.size(); i++) {
            if (int c = exprs(a->bounds[i].min, b->bounds[i].min)) return c;
            if (int c = exprs(a->bounds[i].extent, b->bounds[i].extent)) return c;
        }
        return stmts(a->body, b->body);
    }
};

}  // namespace

bool equal(const Expr& a, const Expr& b) { return a.same_as(b) || Comparer().exprs(a, b) == 0; }
bool equal(const Stmt& a, const Stmt& b) { return a.same_as(b) || Comparer().stmts(a, b) == 0; }
int compare(const Expr& a, const Expr& b) { return a.same_as(b) ? 0 : Comparer().exprs(a, b); }

}  // namespace tessera::ir
