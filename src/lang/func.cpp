#include "tessera/func.h"

#include <iostream>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "lang/definition_checks.h"
#include "lang/function.h"
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
    void visit(const ir::Variable* op) override { found = found || op->var_kind == ir::VariableKind::ReductionVar; }
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

lang::FunctionContents& require_defined(const std::shared_ptr<lang::FunctionContents>& f, const char* what) {
    TESSERA_USER_CHECK(f->defined()) << what << " of Func " << f->name
                                     << ", which has no definition yet. Define it first, e.g. " << f->name
                                     << "(x, y) = ...;";
    return *f;
}

}  // namespace

// --- Stage ---

std::string Stage::name() const { return function_->name + ".s" + std::to_string(index_); }

std::string Stage::dump_argument_list() const {
    const lang::Definition& d = index_ == 0 ? function_->pure : function_->updates[index_ - 1];
    return lang::describe_definition(function_->name, d.args, d.values);
}

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
    if (!f.defined()) {
        TESSERA_USER_CHECK(all_distinct_pure_vars(args_))
            << "the first definition of Func " << f.name << " is " << lang::describe_definition(f.name, args_, values)
            << ", whose arguments are not all Vars. Give " << f.name
            << " a pure definition over Vars first (e.g. " << f.name << "(x) = 0), then update it at other points.";
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
        TESSERA_USER_ERROR << "Func " << f.name << " is defined twice: "
                           << lang::describe_definition(f.name, f.pure.args, f.pure.values) << ", then "
                           << lang::describe_definition(f.name, args_, values)
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

Stage FuncRef::update_with(const Expr& value, int identity, Expr (*combine)(Expr, Expr), const char* op) {
    lang::FunctionContents& f = *function_;
    TESSERA_USER_CHECK(value.defined()) << "Func " << f.name << " " << op << " an undefined Expr.";
    if (!f.defined()) {
        // As in Halide: f(args) += e on an undefined f first defines f to the operator's identity
        // everywhere, with the type of e.
        std::vector<Expr> vars;
        for (size_t i = 0; i < args_.size(); i++) vars.push_back(Var::implicit(int(i)));
        FuncRef(function_, vars) = ir::make_const(value.type(), int64_t(identity));
    }
    TESSERA_USER_CHECK(f.output_types.size() == 1)
        << "Func " << f.name << " has " << f.output_types.size() << " values; " << op
        << " needs a single-valued Func. Update Tuple-valued Funcs with f(...) = Tuple(...).";
    Expr current = FuncRef(function_, args_);
    Expr updated = combine(current, value);
    return define_update({updated});
}

Stage FuncRef::operator+=(const Expr& v) {
    return update_with(v, 0, [](Expr a, Expr b) { return std::move(a) + std::move(b); }, "+=");
}
Stage FuncRef::operator-=(const Expr& v) {
    return update_with(v, 0, [](Expr a, Expr b) { return std::move(a) - std::move(b); }, "-=");
}
Stage FuncRef::operator*=(const Expr& v) {
    return update_with(v, 1, [](Expr a, Expr b) { return std::move(a) * std::move(b); }, "*=");
}
Stage FuncRef::operator/=(const Expr& v) {
    return update_with(v, 1, [](Expr a, Expr b) { return std::move(a) / std::move(b); }, "/=");
}

FuncRef::operator Expr() const {
    const lang::FunctionContents& f = require_defined(function_, "a call");
    TESSERA_USER_CHECK(f.output_types.size() == 1)
        << "Func " << f.name << " has " << f.output_types.size() << " values (a Tuple); select one with "
        << f.name << "(...)[i].";
    return ir::Call::make_func(function_, lang::checked_call_args(f, args_, "a call of"), 0);
}

Expr FuncRef::operator[](int i) const {
    const lang::FunctionContents& f = require_defined(function_, "a call");
    TESSERA_USER_CHECK(i >= 0 && i < int(f.output_types.size()))
        << "Func " << f.name << " has " << f.output_types.size() << " value" << (f.output_types.size() == 1 ? "" : "s")
        << "; there is no value [" << i << "].";
    return ir::Call::make_func(function_, lang::checked_call_args(f, args_, "a call of"), i);
}

size_t FuncRef::size() const { return require_defined(function_, "a call").output_types.size(); }

// --- Func ---

Func::Func() : contents_(lang::make_function(lang::unique_name("f"))) {}
Func::Func(const std::string& name) : contents_(lang::make_function(name)) {}

Func::Func(const Expr& e) : Func() { (*this)() = e; }

std::shared_ptr<lang::FunctionContents> Func::wrap_buffer(const std::shared_ptr<lang::BufferContents>& b, Type t) {
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
const std::vector<Type>& Func::output_types() const { return require_defined(contents_, "output_types()").output_types; }
int Func::outputs() const { return int(output_types().size()); }
bool Func::has_update_definition() const { return !contents_->updates.empty(); }
int Func::num_update_definitions() const { return int(contents_->updates.size()); }

std::vector<Expr> Func::update_args(int i) const {
    TESSERA_USER_CHECK(i >= 0 && i < num_update_definitions()) << "Func " << name() << " has no update " << i << ".";
    return contents_->updates[i].args;
}

Expr Func::update_value(int i) const {
    TESSERA_USER_CHECK(i >= 0 && i < num_update_definitions()) << "Func " << name() << " has no update " << i << ".";
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

Func& Func::compute_root() {
    contents_->schedule.compute_level = schedule::LoopLevel::root();
    contents_->touch();
    return *this;
}

Func& Func::compute_inline() {
    contents_->schedule.compute_level = schedule::LoopLevel::inlined();
    contents_->touch();
    return *this;
}

Func& Func::store_root() {
    contents_->schedule.store_level = schedule::LoopLevel::root();
    contents_->touch();
    return *this;
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

void Func::realize(Realization outputs, const Target& target) { pipeline().realize(std::move(outputs), target); }

void Func::compile_jit(const Target& target) { pipeline().compile_jit(target); }

std::string Func::loop_nest() const { return Pipeline(*this).loop_nest(); }

void Func::print_loop_nest() const { std::cout << loop_nest(); }

void Func::compile_to_lowered_stmt(const std::string& filename, const std::vector<Argument>& args,
                                   StmtOutputFormat format, const Target& target) {
    pipeline().compile_to_lowered_stmt(filename, args, format, target);
}

}  // namespace tessera
