// Func::in() and ImageParam::in(): wrappers, Funcs that read a Func or an image for some or all of
// its consumers, scheduled on their own (to stage data through a copy computed at another loop
// level, for instance). Func::clone_in(): the same for a copy of the Func itself.

#include "ir/mutator.h"
#include "lang/function.h"
#include "lang/parameter.h"
#include "tessera/func.h"
#include "tessera/param.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

using FunctionPtr = std::shared_ptr<lang::FunctionContents>;

std::vector<FunctionPtr> contents_of(const std::vector<Func>& funcs) {
    std::vector<FunctionPtr> contents;
    for (const Func& f : funcs) contents.push_back(f.function());
    return contents;
}

std::string wrapper_name(const std::string& wrapped, const std::vector<Func>& consumers) {
    std::string name = wrapped + (consumers.empty() ? "_global_wrapper" : "_in");
    for (const Func& c : consumers) name += "_" + c.name();
    return name;
}

// The pure Vars of a wrapper, named as those of the Func it wraps.
std::vector<Expr> pure_vars(const std::vector<std::string>& names) {
    std::vector<Expr> vars;
    for (const std::string& n : names)
        vars.push_back(ir::Variable::make(Int(32), n, ir::VariableKind::PureVar));
    return vars;
}

// f(args) = original(args), with the call held weakly: the original owns its wrappers.
FunctionPtr make_wrapper(const FunctionPtr& original, const std::string& name) {
    auto w = lang::make_function(name);
    w->pure_args = original->pure_args;
    w->output_types = original->output_types;
    w->pure.args = pure_vars(w->pure_args);
    for (size_t i = 0; i < original->output_types.size(); i++) {
        auto call =
            std::make_shared<ir::Call>(*ir::Call::make_func(original, w->pure.args, int(i)).as<ir::Call>());
        call->weak_func = original;
        call->func = nullptr;
        w->pure.values.push_back(Expr(std::shared_ptr<const ir::ExprNode>(std::move(call))));
    }
    return w;
}

// w(_0, _1, ...) = image(_0, _1, ...), with the image held weakly: the image owns its wrappers.
FunctionPtr make_image_wrapper(const std::shared_ptr<lang::ParameterContents>& image,
                               const std::string& name) {
    auto w = lang::make_function(name);
    for (int d = 0; d < image->dimensions; d++) w->pure_args.push_back(Var::implicit(d).name());
    w->output_types = {image->type};
    w->pure.args = pure_vars(w->pure_args);
    auto call = std::make_shared<ir::Call>(*lang::image_param_access(image, w->pure.args).as<ir::Call>());
    call->weak_param = image;
    call->param = nullptr;
    w->pure.values.push_back(Expr(std::shared_ptr<const ir::ExprNode>(std::move(call))));
    return w;
}

// Points a clone's calls of the original (in its updates) at the clone, held weakly as a Func's
// calls of itself are.
class CallClone : public ir::Mutator {
public:
    CallClone(const FunctionPtr& original, const FunctionPtr& clone) : original_(original), clone_(clone) {}

private:
    using ir::Mutator::visit;
    Expr visit(const ir::Call* op) override {
        Expr e = ir::Mutator::visit(op);
        if (op->call_type != ir::CallType::Func || op->function() != original_) return e;
        auto call = std::make_shared<ir::Call>(*e.as<ir::Call>());
        call->name = clone_->name;
        call->func = nullptr;
        call->weak_func = clone_;
        return Expr(std::shared_ptr<const ir::ExprNode>(std::move(call)));
    }
    FunctionPtr original_, clone_;
};

void call_clone(lang::Definition& d, CallClone& rewrite) {
    for (Expr& a : d.args) a = rewrite.mutate(a);
    for (Expr& v : d.values) v = rewrite.mutate(v);
    for (lang::Specialization& s : d.specializations) {
        if (!s.definition) continue;
        s.definition = std::make_shared<lang::Definition>(*s.definition);  // not the original's
        call_clone(*s.definition, rewrite);
    }
}

// A copy of the original's definitions and schedule, under a new name, with no wrappers.
FunctionPtr make_clone(const FunctionPtr& original, const std::string& name) {
    auto clone = lang::make_function(name);
    clone->pure_args = original->pure_args;
    clone->output_types = original->output_types;
    clone->pure = original->pure;
    clone->updates = original->updates;
    clone->schedule = original->schedule;
    clone->trace_stores = original->trace_stores;
    CallClone rewrite(original, clone);
    call_clone(clone->pure, rewrite);
    for (lang::Definition& u : clone->updates) call_clone(u, rewrite);
    return clone;
}

lang::Wrapper wrapper_of(const FunctionPtr& function, const std::vector<Func>& consumers) {
    lang::Wrapper w;
    for (const Func& c : consumers) w.consumers.push_back(c.function());
    w.function = function;
    return w;
}

}  // namespace

Func Func::in(const std::vector<Func>& consumers) {
    TESSERA_USER_CHECK(defined()) << name() << ".in(...): define " << name() << " before wrapping it.";
    for (const Func& c : consumers) {
        TESSERA_USER_CHECK(c.function() != contents_)
            << name() << ".in(" << name() << "): a Func cannot wrap itself for itself.";
    }
    if (FunctionPtr existing = lang::wrapper_made_for(contents_->wrappers, contents_of(consumers)))
        return Func(existing);
    contents_->wrappers.push_back(
        wrapper_of(make_wrapper(contents_, wrapper_name(name(), consumers)), consumers));
    contents_->touch();
    return Func(contents_->wrappers.back().function);
}

Func Func::in(const Func& consumer) { return in(std::vector<Func>{consumer}); }

Func Func::in() { return in(std::vector<Func>{}); }

Func Func::clone_in(const std::vector<Func>& consumers) {
    TESSERA_USER_CHECK(defined()) << name() << ".clone_in(...): define " << name() << " before cloning it.";
    TESSERA_USER_CHECK(!consumers.empty())
        << name() << ".clone_in({}): name the Funcs that should call the clone of " << name() << ".";
    for (const Func& c : consumers) {
        TESSERA_USER_CHECK(c.function() != contents_)
            << name() << ".clone_in(" << name() << "): a Func cannot be cloned for itself.";
    }
    if (FunctionPtr existing = lang::wrapper_made_for(contents_->wrappers, contents_of(consumers), true))
        return Func(existing);
    std::string clone_name = name() + "_clone_in";
    for (const Func& c : consumers) clone_name += "_" + c.name();
    contents_->wrappers.push_back(wrapper_of(make_clone(contents_, clone_name), consumers));
    contents_->wrappers.back().is_clone = true;
    contents_->touch();
    return Func(contents_->wrappers.back().function);
}

Func Func::clone_in(const Func& consumer) { return clone_in(std::vector<Func>{consumer}); }

Func ImageParam::in(const std::vector<Func>& consumers) {
    TESSERA_USER_CHECK(contents_)
        << "in() of an undefined ImageParam: construct it with a type and dimensions.";
    for (const Func& c : consumers) {
        TESSERA_USER_CHECK(c.defined()) << name() << ".in(" << c.name() << "): define " << c.name()
                                        << " before naming it as a consumer of " << name() << ".";
    }
    if (FunctionPtr existing = lang::wrapper_made_for(contents_->wrappers, contents_of(consumers)))
        return Func(existing);
    contents_->wrappers.push_back(
        wrapper_of(make_image_wrapper(contents_, wrapper_name(name(), consumers)), consumers));
    // Code compiled before reads the image directly: compile again.
    contents_->constraints_version++;
    return Func(contents_->wrappers.back().function);
}

Func ImageParam::in(const Func& consumer) { return in(std::vector<Func>{consumer}); }

Func ImageParam::in() { return in(std::vector<Func>{}); }

}  // namespace tessera
