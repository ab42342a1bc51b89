#include "tessera/func.h"

#include <algorithm>
#include <iostream>
#include <set>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "lang/definition_checks.h"
#include "lang/function.h"
#include "lang/implicit_vars.h"
#include "lang/parameter.h"
#include "lowering/names.h"
#include "tessera/param.h"
#include "tessera/pipeline.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

bool all_distinct_pure_vars(const std::vector<Expr>& args) {
    for (const Expr& a : args) {
        const ir::Variable* v = a.as<ir::Variable>();
        if (!v || v->var_kind != ir::VariableKind::PureVar) return false;
    }
    return true;
}

bool same_pure_args(const lang::FunctionContents& f, const std::vector<Expr>& args) {
    if (args.size() != f.pure_args.size()) return false;
    for (size_t i = 0; i < args.size(); i++) {
        const ir::Variable* v = args[i].as<ir::Variable>();
        if (!v || v->name != f.pure_args[i]) return false;
    }
    return true;
}

bool mentions_reduction_or_self(const lang::FunctionContents& f, const std::vector<Expr>& exprs);

class FindSelfOrRVar : public ir::Visitor {
public:
    explicit FindSelfOrRVar(const lang::FunctionContents& f) : self(f) {}
    const lang::FunctionContents& self;
    bool found = false;

private:
    void visit(const ir::Variable* op) override {
        found = found || op->var_kind == ir::VariableKind::ReductionVar;
    }
    void visit(const ir::Call* op) override {
        found = found || (op->call_type == ir::CallType::Func && op->function().get() == &self);
        ir::Visitor::visit(op);
    }
};

bool mentions_reduction_or_self(const lang::FunctionContents& f, const std::vector<Expr>& exprs) {
    FindSelfOrRVar finder(f);
    for (const Expr& e : exprs) finder.include(e);
    return finder.found;
}

// Calls of f inside its own updates, rebuilt to hold f weakly (a Func must not own itself).
class WeakenSelfCalls : public ir::Mutator {
public:
    explicit WeakenSelfCalls(const std::shared_ptr<lang::FunctionContents>& f) : self(f) {}

private:
    const std::shared_ptr<lang::FunctionContents>& self;
    Expr visit(const ir::Call* op) override {
        Expr e = ir::Mutator::visit(op);
        const ir::Call* call = e.as<ir::Call>();
        if (call->call_type != ir::CallType::Func || call->func != self) return e;
        auto weak = std::make_shared<ir::Call>(*call);
        weak->func = nullptr;
        weak->weak_func = self;
        return Expr(std::shared_ptr<const ir::ExprNode>(std::move(weak)));
    }
};

bool is_placeholder(const Expr& e) {
    const ir::Variable* v = e.as<ir::Variable>();
    return v && v->var_kind == ir::VariableKind::PureVar && Var::is_placeholder(v->name);
}

bool has_placeholder(const std::vector<Expr>& args) {
    return std::any_of(args.begin(), args.end(), is_placeholder);
}

// The implicit Vars (_0, _1, ...) an expression uses, by index.
class FindImplicitVars : public ir::Visitor {
public:
    std::set<int> indices;

private:
    void visit(const ir::Variable* op) override {
        const int i = Var::implicit_index(op->name);
        if (op->var_kind == ir::VariableKind::PureVar && i >= 0) indices.insert(i);
    }
};

// f(x, _) = e: the placeholder stands for the implicit Vars e uses that the other arguments do not.
std::vector<Expr> expand_definition_placeholder(const std::vector<Expr>& args,
                                                const std::vector<Expr>& values) {
    FindImplicitVars used, named;
    for (const Expr& v : values) used.include(v);
    for (const Expr& a : args) named.include(a);
    std::vector<Expr> expanded;
    for (const Expr& a : args) {
        if (!is_placeholder(a)) {
            expanded.push_back(a);
            continue;
        }
        for (int i : used.indices)
            if (!named.indices.count(i)) expanded.push_back(Var::implicit(i));
    }
    return expanded;
}

// The Vars for a pure definition made implicitly by f(args) += e: the update's own pure Vars
// where it has them, implicit Vars elsewhere.
std::vector<Expr> pure_vars_like(const std::vector<Expr>& args) {
    std::vector<Expr> vars;
    std::set<std::string> taken;
    for (const Expr& a : args) {
        const ir::Variable* v = a.as<ir::Variable>();
        if (v && v->var_kind == ir::VariableKind::PureVar) taken.insert(v->name);
    }
    for (size_t i = 0; i < args.size(); i++) {
        const ir::Variable* v = args[i].as<ir::Variable>();
        if (v && v->var_kind == ir::VariableKind::PureVar &&
            std::count_if(vars.begin(), vars.end(),
                          [&](const Expr& e) { return e.as<ir::Variable>()->name == v->name; }) == 0) {
            vars.push_back(args[i]);
            continue;
        }
        int k = int(i);
        while (taken.count(Var::implicit(k).name())) k++;
        taken.insert(Var::implicit(k).name());
        vars.push_back(Var::implicit(k));
    }
    return vars;
}

lang::FunctionContents& require_defined(const std::shared_ptr<lang::FunctionContents>& f, const char* what) {
    TESSERA_USER_CHECK(f->defined()) << what << " of Func " << f->name
                                     << ", which has no definition yet. Define it first, e.g. " << f->name
                                     << "(x, y) = ...;";
    return *f;
}

}  // namespace

// --- FuncRef ---

Stage FuncRef::operator=(const Expr& value) { return *this = Tuple(std::vector<Expr>{value}); }

Stage FuncRef::operator=(const FuncRef& value) {
    if (value.size() > 1) {
        std::vector<Expr> values;
        for (size_t i = 0; i < value.size(); i++) values.push_back(value[int(i)]);
        return *this = Tuple(values);
    }
    return *this = Expr(value);
}

Stage FuncRef::operator=(const Tuple& values_tuple) {
    lang::FunctionContents& f = *function_;
    const std::vector<Expr>& values = values_tuple.as_vector();
    if (has_placeholder(args_)) {
        FuncRef expanded(function_, expand_definition_placeholder(args_, values));
        return expanded = values_tuple;
    }
    if (!f.defined()) {
        TESSERA_USER_CHECK(all_distinct_pure_vars(args_))
            << "the first definition of Func " << f.name << " is "
            << lang::describe_definition(f.name, args_, values) << ", whose arguments are not all Vars. Give "
            << f.name << " a pure definition over Vars first (e.g. " << f.name
            << "(x) = 0), then update it at other points.";
        lang::check_pure_definition(f, args_, values);
        for (const Expr& a : args_) f.pure_args.push_back(a.as<ir::Variable>()->name);
        f.pure.args = args_;
        f.pure.values = values;
        f.output_types.clear();
        for (const Expr& v : values) f.output_types.push_back(v.type());
        f.touch();
        return Stage(function_, 0);
    }
    if (same_pure_args(f, args_) && !mentions_reduction_or_self(f, values)) {
        TESSERA_USER_ERROR
            << "Func " << f.name
            << " is defined twice: " << lang::describe_definition(f.name, f.pure.args, f.pure.values)
            << ", then " << lang::describe_definition(f.name, args_, values)
            << ". A second pure definition would silently replace the first. Use a new Func, or "
               "write an update that reads "
            << f.name << " (e.g. " << f.name << "(...) = " << f.name << "(...) + 1).";
    }
    return define_update(values);
}

Stage FuncRef::define_update(const std::vector<Expr>& values) {
    lang::FunctionContents& f = *function_;
    std::vector<Expr> args = lang::checked_call_args(f, args_, "the update of");
    lang::Definition d;
    d.rdom = lang::check_update_definition(f, args, values);
    WeakenSelfCalls weaken(function_);
    for (Expr& a : args) a = weaken.mutate(a);
    d.args = std::move(args);
    for (const Expr& v : values) d.values.push_back(weaken.mutate(v));
    f.updates.push_back(std::move(d));
    f.touch();
    return Stage(function_, int(f.updates.size()));
}

Stage FuncRef::update_with(const Tuple& values, int identity, Expr (*combine)(Expr, Expr), const char* op) {
    lang::FunctionContents& f = *function_;
    for (size_t i = 0; i < values.size(); i++) {
        TESSERA_USER_CHECK(values[i].defined()) << "Func " << f.name << " " << op << " an undefined Expr.";
    }
    if (!f.defined()) {
        // As in Halide: f(args) += e on an undefined f first defines f to the operator's identity
        // everywhere, with the types of e.
        std::vector<Expr> initial;
        for (size_t i = 0; i < values.size(); i++)
            initial.push_back(ir::make_const(values[i].type(), int64_t(identity)));
        FuncRef(function_, pure_vars_like(args_)) = Tuple(initial);
    }
    TESSERA_USER_CHECK(f.output_types.size() == values.size())
        << "Func " << f.name << " has " << f.output_types.size() << " value"
        << (f.output_types.size() == 1 ? "" : "s") << ", but " << op << " gives " << values.size() << ".";
    std::vector<Expr> updated;
    FuncRef self(function_, args_);
    for (size_t i = 0; i < values.size(); i++) {
        Expr current = values.size() == 1 ? Expr(self) : Expr(self[int(i)]);
        updated.push_back(combine(current, values[i]));
    }
    return define_update(updated);
}

namespace {
Expr add(Expr a, Expr b) { return std::move(a) + std::move(b); }
Expr subtract(Expr a, Expr b) { return std::move(a) - std::move(b); }
Expr multiply(Expr a, Expr b) { return std::move(a) * std::move(b); }
Expr divide(Expr a, Expr b) { return std::move(a) / std::move(b); }
}  // namespace

Stage FuncRef::operator+=(const Expr& v) { return update_with(Tuple(v), 0, add, "+="); }
Stage FuncRef::operator-=(const Expr& v) { return update_with(Tuple(v), 0, subtract, "-="); }
Stage FuncRef::operator*=(const Expr& v) { return update_with(Tuple(v), 1, multiply, "*="); }
Stage FuncRef::operator/=(const Expr& v) { return update_with(Tuple(v), 1, divide, "/="); }
Stage FuncRef::operator+=(const Tuple& v) { return update_with(v, 0, add, "+="); }
Stage FuncRef::operator-=(const Tuple& v) { return update_with(v, 0, subtract, "-="); }
Stage FuncRef::operator*=(const Tuple& v) { return update_with(v, 1, multiply, "*="); }
Stage FuncRef::operator/=(const Tuple& v) { return update_with(v, 1, divide, "/="); }

FuncRef::operator Expr() const {
    const lang::FunctionContents& f = require_defined(function_, "a call");
    TESSERA_USER_CHECK(f.output_types.size() == 1)
        << "Func " << f.name << " has " << f.output_types.size() << " values (a Tuple); select one with "
        << f.name << "(...)[i].";
    std::vector<Expr> args = args_;
    lang::expand_placeholder(args, f.dimensions());
    return ir::Call::make_func(function_, lang::checked_call_args(f, args, "a call of"), 0);
}

FuncTupleElementRef FuncRef::operator[](int i) const {
    const lang::FunctionContents& f = require_defined(function_, "a call");
    TESSERA_USER_CHECK(i >= 0 && i < int(f.output_types.size()))
        << "Func " << f.name << " has " << f.output_types.size() << " value"
        << (f.output_types.size() == 1 ? "" : "s") << "; there is no value [" << i << "].";
    return FuncTupleElementRef(*this, i);
}

// --- FuncTupleElementRef ---

FuncTupleElementRef::FuncTupleElementRef(const FuncRef& ref, int index)
    : function_(ref.function()), args_(ref.arguments()), index_(index) {}

FuncTupleElementRef::operator Expr() const {
    const lang::FunctionContents& f = require_defined(function_, "a call");
    std::vector<Expr> args = args_;
    lang::expand_placeholder(args, f.dimensions());
    return ir::Call::make_func(function_, lang::checked_call_args(f, args, "a call of"), index_);
}

// An update of one value: the others are written back unchanged.
Stage FuncTupleElementRef::operator=(const Expr& value) {
    const lang::FunctionContents& f = require_defined(function_, "an update of one value");
    FuncRef whole(function_, args_);
    std::vector<Expr> values;
    for (int i = 0; i < int(f.output_types.size()); i++) {
        values.push_back(i == index_ ? value : Expr(FuncTupleElementRef(whole, i)));
    }
    return whole = Tuple(values);
}

Stage FuncTupleElementRef::operator+=(const Expr& value) { return *this = Expr(*this) + value; }
Stage FuncTupleElementRef::operator-=(const Expr& value) { return *this = Expr(*this) - value; }
Stage FuncTupleElementRef::operator*=(const Expr& value) { return *this = Expr(*this) * value; }
Stage FuncTupleElementRef::operator/=(const Expr& value) { return *this = Expr(*this) / value; }

size_t FuncRef::size() const { return require_defined(function_, "a call").output_types.size(); }

// --- Func ---

Func::Func() : contents_(lang::make_function(lang::unique_name("f"))) {}
Func::Func(const std::string& name) : contents_(lang::make_function(name)) {}

Func::Func(const Expr& e) : Func() { (*this)() = e; }

std::shared_ptr<lang::FunctionContents> Func::wrap_buffer(const std::shared_ptr<lang::BufferContents>& b,
                                                          Type t) {
    auto f = lang::make_function(lang::unique_name(b->name + "_im"));
    std::vector<Expr> vars;
    for (int d = 0; d < b->raw.dimensions; d++) vars.push_back(Var::implicit(d));
    FuncRef(f, vars) = lang::buffer_access(b, t, vars);
    return f;
}

const std::string& Func::name() const { return contents_->name; }
bool Func::defined() const { return contents_->defined(); }
int Func::dimensions() const { return contents_->dimensions(); }

std::vector<Var> Func::args() const {
    std::vector<Var> vars;
    for (const std::string& n : contents_->pure_args) vars.emplace_back(n);
    return vars;
}

Expr Func::value() const { return require_defined(contents_, "value()").pure.values[0]; }
Tuple Func::values() const { return Tuple(require_defined(contents_, "values()").pure.values); }
Type Func::type() const { return require_defined(contents_, "type()").output_types[0]; }
const std::vector<Type>& Func::output_types() const {
    return require_defined(contents_, "output_types()").output_types;
}
int Func::outputs() const { return int(output_types().size()); }

std::vector<OutputImageParam> Func::output_buffers() const {
    TESSERA_USER_CHECK(contents_->defined())
        << "Func " << name() << " has no definition yet; define it before asking for its output buffer.";
    std::vector<std::shared_ptr<lang::ParameterContents>>& buffers = contents_->output_buffers;
    const int values = outputs();
    if (buffers.empty()) {
        for (int i = 0; i < values; i++) {
            buffers.push_back(lang::make_buffer_parameter(output_types()[i], dimensions(),
                                                          lowering::value_buffer(name(), i, values)));
            buffers.back()->is_output = true;
        }
        // Code compiled before the buffers existed knows nothing of their requirements.
        contents_->touch();
    }
    std::vector<OutputImageParam> result;
    for (const auto& b : buffers) result.emplace_back(b);
    return result;
}

OutputImageParam Func::output_buffer() const {
    TESSERA_USER_CHECK(!contents_->defined() || outputs() == 1)
        << "Func " << name() << " has " << outputs()
        << " values; use output_buffers() for the buffer of each.";
    return output_buffers().front();
}
bool Func::has_update_definition() const { return !contents_->updates.empty(); }
int Func::num_update_definitions() const { return int(contents_->updates.size()); }

std::vector<Expr> Func::update_args(int i) const {
    TESSERA_USER_CHECK(i >= 0 && i < num_update_definitions())
        << "Func " << name() << " has no update " << i << ".";
    return contents_->updates[i].args;
}

Expr Func::update_value(int i) const {
    TESSERA_USER_CHECK(i >= 0 && i < num_update_definitions())
        << "Func " << name() << " has no update " << i << ".";
    return contents_->updates[i].values[0];
}

FuncRef Func::operator()(const std::vector<Var>& args) const {
    std::vector<Expr> exprs(args.begin(), args.end());
    return FuncRef(contents_, exprs);
}

Stage Func::update(int i) const {
    TESSERA_USER_CHECK(i >= 0 && i < num_update_definitions())
        << "Func " << name() << " has " << num_update_definitions() << " update definition"
        << (num_update_definitions() == 1 ? "" : "s") << "; there is no update(" << i << ").";
    return Stage(contents_, i + 1);
}

Func& Func::trace_stores() {
    contents_->trace_stores = true;
    contents_->touch();
    return *this;
}

Pipeline Func::pipeline() const { return Pipeline(*this); }

Realization Func::realize(std::vector<int32_t> sizes, const Target& target) {
    return pipeline().realize(std::move(sizes), target);
}

void Func::realize(Realization outputs, const Target& target) {
    pipeline().realize(std::move(outputs), target);
}

void Func::compile_jit(const Target& target) { pipeline().compile_jit(target); }

std::string Func::loop_nest() const { return Pipeline(*this).loop_nest(); }

void Func::print_loop_nest() const { std::cout << loop_nest(); }

void Func::compile_to_lowered_stmt(const std::string& filename, const std::vector<Argument>& args,
                                   StmtOutputFormat format, const Target& target) {
    pipeline().compile_to_lowered_stmt(filename, args, format, target);
}

}  // namespace tessera
