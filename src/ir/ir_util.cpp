#include "ir/ir_util.h"

#include <limits>
#include <type_traits>

#include "ir/node_list.h"
#include "ir/visitor.h"
#include "util/error_stream.h"

namespace tessera::ir {

std::optional<int64_t> as_const_int(const Expr& e) {
    if (const IntImm* i = e.as<IntImm>()) return i->value;
    if (const Broadcast* b = e.as<Broadcast>()) return as_const_int(b->value);
    return std::nullopt;
}

std::optional<uint64_t> as_const_uint(const Expr& e) {
    if (const UIntImm* i = e.as<UIntImm>()) return i->value;
    if (const Broadcast* b = e.as<Broadcast>()) return as_const_uint(b->value);
    return std::nullopt;
}

std::optional<double> as_const_float(const Expr& e) {
    if (const FloatImm* f = e.as<FloatImm>()) return f->value;
    if (const Broadcast* b = e.as<Broadcast>()) return as_const_float(b->value);
    return std::nullopt;
}

bool is_const(const Expr& e) {
    return e.defined() && (as_const_int(e) || as_const_uint(e) || as_const_float(e));
}

bool is_const(const Expr& e, int64_t value) {
    if (auto i = as_const_int(e)) return *i == value;
    if (auto u = as_const_uint(e)) return value >= 0 && *u == uint64_t(value);
    if (auto f = as_const_float(e)) return *f == double(value);
    return false;
}

bool is_const_zero(const Expr& e) { return is_const(e, 0); }
bool is_const_one(const Expr& e) { return is_const(e, 1); }

Expr make_const(Type t, int64_t value) {
    Type s = t.element_of();
    Expr c;
    if (s.is_int())
        c = IntImm::make(s, value);
    else if (s.is_uint())
        c = UIntImm::make(s, uint64_t(value));
    else if (s.is_float())
        c = FloatImm::make(s, double(value));
    else
        TESSERA_INTERNAL_ERROR << "make_const of type " << type_name(t);
    return t.is_vector() ? Broadcast::make(c, t.lanes()) : c;
}

Expr make_const(Type t, double value) {
    Type s = t.element_of();
    if (!s.is_float()) return make_const(t, int64_t(value));
    Expr c = FloatImm::make(s, value);
    return t.is_vector() ? Broadcast::make(c, t.lanes()) : c;
}

Expr make_zero(Type t) { return make_const(t, int64_t(0)); }
Expr make_one(Type t) { return make_const(t, int64_t(1)); }
Expr make_bool(bool value, int lanes) { return make_const(Bool(lanes), int64_t(value)); }
Expr const_true(int lanes) { return make_bool(true, lanes); }
Expr const_false(int lanes) { return make_bool(false, lanes); }

Expr type_min(Type t) {
    Type s = t.element_of();
    Expr c;
    if (s.is_int())
        c = IntImm::make(
            s, s.bits() == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (s.bits() - 1)));
    else if (s.is_uint())
        c = UIntImm::make(s, 0);
    else if (s.is_float())
        c = FloatImm::make(s, -std::numeric_limits<double>::infinity());
    else
        TESSERA_INTERNAL_ERROR << "type_min of " << type_name(t);
    return t.is_vector() ? Broadcast::make(c, t.lanes()) : c;
}

Expr type_max(Type t) {
    Type s = t.element_of();
    Expr c;
    if (s.is_int())
        c = IntImm::make(
            s, s.bits() == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (s.bits() - 1)) - 1);
    else if (s.is_uint())
        c = UIntImm::make(s, s.bits() == 64 ? ~uint64_t(0) : (uint64_t(1) << s.bits()) - 1);
    else if (s.is_float())
        c = FloatImm::make(s, std::numeric_limits<double>::infinity());
    else
        TESSERA_INTERNAL_ERROR << "type_max of " << type_name(t);
    return t.is_vector() ? Broadcast::make(c, t.lanes()) : c;
}

Expr int_var(const std::string& name) { return Variable::make(Int(32), name); }

bool is_likely(const Expr& e) {
    const Call* call = e.as<Call>();
    return call && call->call_type == CallType::Intrinsic &&
           (call->intrinsic == Intrinsic::Likely || call->intrinsic == Intrinsic::LikelyIfInnermost);
}

Expr without_likely(Expr e) {
    while (is_likely(e)) e = e.as<Call>()->args[0];
    return e;
}

namespace {

// Hands each Variable of an expression to variable(), visiting a node shared by a DAG once:
// expressions built by bounds inference share subexpressions heavily, and walked as a tree a DAG
// can be exponentially large. Up to tree_walk_limit nodes are walked as a tree, which costs less
// than remembering them. Stops once done().
class VariableVisitor : public Visitor {
public:
    explicit VariableVisitor(int tree_walk_limit) : tree_walk_limit_(tree_walk_limit) {}

protected:
    virtual void variable(const Variable* op) = 0;
    virtual bool done() const { return false; }

private:
    template <typename T>
    void once(const T* op) {
        if (done()) return;
        if (++visited_ > tree_walk_limit_ && !seen_.insert(op).second) return;
        if constexpr (std::is_same_v<T, Variable>)
            variable(op);
        else
            Visitor::visit(op);
    }
#define TESSERA_ONCE(T) \
    void visit(const T* op) override { once(op); }
    TESSERA_FOR_EACH_EXPR(TESSERA_ONCE)
#undef TESSERA_ONCE

    const int tree_walk_limit_;
    int visited_ = 0;
    std::unordered_set<const void*> seen_;
};

// Stops at the first use of the name.
class FindVar : public VariableVisitor {
public:
    explicit FindVar(const std::string& n) : VariableVisitor(256), name(n) {}
    const std::string& name;
    bool found = false;

private:
    void variable(const Variable* op) override { found = found || op->name == name; }
    bool done() const override { return found; }
};

}  // namespace

bool uses_var(const Expr& e, const std::string& name) {
    FindVar f(name);
    f.include(e);
    return f.found;
}

bool uses_var(const Stmt& s, const std::string& name) {
    FindVar f(name);
    f.include(s);
    return f.found;
}

namespace {

class VariableNames : public VariableVisitor {
public:
    VariableNames() : VariableVisitor(0) {}
    std::unordered_set<std::string> names;
    using Visitor::include;

private:
    void variable(const Variable* op) override { names.insert(op->name); }
};

template <typename T>
std::unordered_set<std::string> names_in(const T& x) {
    VariableNames v;
    v.include(x);
    return std::move(v.names);
}

class BoundNames : public Visitor {
public:
    std::unordered_set<std::string> names;

private:
    using Visitor::visit;
    // Called with the head of each chain of lets: every let in the chain binds a name.
    template <typename LetT>
    void chain(const LetT* head) {
        for (const LetT* let = head; let; let = let->body.template as<LetT>()) names.insert(let->name);
        Visitor::visit(head);
    }
    void visit(const Let* op) override { chain(op); }
    void visit(const LetStmt* op) override { chain(op); }
    void visit(const For* op) override {
        names.insert(op->name);
        Visitor::visit(op);
    }
};

}  // namespace

std::unordered_set<std::string> variables_read(const Expr& e) { return names_in(e); }
std::unordered_set<std::string> variables_read(const Stmt& s) { return names_in(s); }

std::unordered_set<std::string> names_bound(const Stmt& s) {
    BoundNames b;
    b.include(s);
    return std::move(b.names);
}

const For* loop_under_lets(const Stmt& s) {
    Stmt inner = s;
    while (const LetStmt* let = inner.as<LetStmt>()) inner = let->body;
    return inner.as<For>();
}

}  // namespace tessera::ir
