#include "lowering/inline_functions.h"

#include <algorithm>

#include "ir/mutator.h"
#include "ir/substitute.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

class InlineCalls : public ir::Mutator {
public:
    explicit InlineCalls(const lang::FunctionContents& f) : callee(f) {}

private:
    const lang::FunctionContents& callee;

    Expr visit(const ir::Call* op) override {
        Expr e = ir::Mutator::visit(op);
        const ir::Call* call = e.as<ir::Call>();
        if (!call || call->call_type != ir::CallType::Func || call->name != callee.name) return e;
        // Bind arguments that are not already simple by lets, so that an argument used several
        // times in the body is computed once and the expression does not grow.
        std::map<std::string, Expr> replacements;
        std::vector<std::pair<std::string, Expr>> lets;
        for (size_t i = 0; i < call->args.size(); i++) {
            const Expr& arg = call->args[i];
            if (arg.as<ir::Variable>() || arg.as<ir::IntImm>()) {
                replacements[callee.pure_args[i]] = arg;
            } else {
                std::string name = callee.name + "." + callee.pure_args[i];
                lets.emplace_back(name, arg);
                replacements[callee.pure_args[i]] = ir::Variable::make(Int(32), name);
            }
        }
        Expr body = ir::substitute(replacements, callee.pure.values[call->value_index]);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            body = ir::Let::make(it->first, it->second, body);
        return body;
    }
};

}  // namespace

bool is_computed_inline(const Environment& env, const std::string& name) {
    if (env.is_output(name)) return false;
    const lang::FunctionContents& f = env.function(name);
    const schedule::LoopLevel& level = f.schedule.compute_level;
    if (level.is_inherited()) return f.updates.empty();
    return level.is_inline();
}

void inline_functions(Environment& env) {
    std::vector<std::string> kept;
    for (size_t i = 0; i < env.order.size(); i++) {
        const std::string& name = env.order[i];
        if (!is_computed_inline(env, name)) {
            kept.push_back(name);
            continue;
        }
        const lang::FunctionContents& f = env.function(name);
        TESSERA_USER_CHECK(f.updates.empty())
            << "Func " << name << " is scheduled compute_inline(), but it has " << f.updates.size()
            << " update definition" << (f.updates.size() == 1 ? "" : "s")
            << ", and only pure Funcs can be inlined. Use compute_root() for " << name << ".";
        TESSERA_USER_CHECK(f.pure.specializations.empty())
            << "Func " << name
            << " is computed inline, but it has specializations, which need loops of its own. "
            << "Schedule it with compute_root() or compute_at(), or specialize its consumer instead.";
        InlineCalls inliner(f);
        for (size_t j = i + 1; j < env.order.size(); j++) {
            lang::FunctionContents& consumer = env.functions.at(env.order[j]);
            for_each_definition(consumer, [&](const Expr& e) { return inliner.mutate(e); });
        }
    }
    for (const std::string& name : env.order) {
        if (std::find(kept.begin(), kept.end(), name) == kept.end()) env.functions.erase(name);
    }
    env.order = kept;
}

}  // namespace tessera::lowering
