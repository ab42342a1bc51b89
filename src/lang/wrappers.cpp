// Func::in(): wrappers, Funcs that read a Func for some or all of its consumers, scheduled on their
// own (to stage data through a copy computed at another loop level, for instance).

#include <algorithm>

#include "lang/function.h"
#include "tessera/func.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

bool same_consumers(const lang::Wrapper& w, const std::vector<Func>& consumers) {
    if (w.consumers.size() != consumers.size()) return false;
    for (const Func& f : consumers) {
        bool listed = std::any_of(w.consumers.begin(), w.consumers.end(),
                                  [&](const auto& c) { return c.lock() == f.function(); });
        if (!listed) return false;
    }
    return true;
}

// f(args) = original(args), with the call held weakly: the original owns its wrappers.
std::shared_ptr<lang::FunctionContents> make_wrapper(const std::shared_ptr<lang::FunctionContents>& original,
                                                     const std::string& name) {
    auto w = lang::make_function(name);
    w->pure_args = original->pure_args;
    w->output_types = original->output_types;
    std::vector<Expr> args;
    for (const std::string& a : original->pure_args)
        args.push_back(ir::Variable::make(Int(32), a, ir::VariableKind::PureVar));
    w->pure.args = args;
    for (size_t i = 0; i < original->output_types.size(); i++) {
        auto call = std::make_shared<ir::Call>(*ir::Call::make_func(original, args, int(i)).as<ir::Call>());
        call->weak_func = original;
        call->func = nullptr;
        w->pure.values.push_back(Expr(std::shared_ptr<const ir::ExprNode>(std::move(call))));
    }
    return w;
}

}  // namespace

Func Func::in(const std::vector<Func>& consumers) {
    TESSERA_USER_CHECK(defined()) << name() << ".in(...): define " << name() << " before wrapping it.";
    for (const Func& c : consumers) {
        TESSERA_USER_CHECK(c.function() != contents_)
            << name() << ".in(" << name() << "): a Func cannot wrap itself for itself.";
    }
    for (const lang::Wrapper& w : contents_->wrappers) {
        if (same_consumers(w, consumers)) return Func(w.function);
    }
    std::string wrapper_name = name() + (consumers.empty() ? "_global_wrapper" : "_in");
    for (const Func& c : consumers) wrapper_name += "_" + c.name();
    lang::Wrapper w;
    for (const Func& c : consumers) w.consumers.push_back(c.function());
    w.function = make_wrapper(contents_, wrapper_name);
    contents_->wrappers.push_back(w);
    contents_->touch();
    return Func(w.function);
}

Func Func::in(const Func& consumer) { return in(std::vector<Func>{consumer}); }

Func Func::in() { return in(std::vector<Func>{}); }

}  // namespace tessera
