// cache_write: f's definitions move to a new Func that computes into storage of its own, and f
// becomes the stage that copies that result out.

#include "ir/mutator.h"
#include "lang/function.h"
#include "tessera/cache.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

// Calls of `from` become calls of `to`, held weakly as a Func's calls of itself are.
class RedirectSelfCalls : public ir::Mutator {
public:
    RedirectSelfCalls(const lang::FunctionContents* from, std::shared_ptr<lang::FunctionContents> to)
        : from_(from), to_(std::move(to)) {}

private:
    using ir::Mutator::visit;
    Expr visit(const ir::Call* op) override {
        Expr call = ir::Mutator::visit(op);
        const ir::Call* c = call.as<ir::Call>();
        if (!c || c->call_type != ir::CallType::Func || c->function().get() != from_) return call;
        auto redirected = std::make_shared<ir::Call>(*c);
        redirected->name = to_->name;
        redirected->func = nullptr;
        redirected->weak_func = to_;
        return Expr(std::shared_ptr<const ir::ExprNode>(std::move(redirected)));
    }
    const lang::FunctionContents* from_;
    std::shared_ptr<lang::FunctionContents> to_;
};

lang::Definition redirected(const lang::Definition& d, RedirectSelfCalls& redirect) {
    lang::Definition copy = d;
    for (Expr& a : copy.args) a = redirect.mutate(a);
    for (Expr& v : copy.values) v = redirect.mutate(v);
    for (lang::Specialization& s : copy.specializations) {
        if (s.definition)
            s.definition = std::make_shared<lang::Definition>(redirected(*s.definition, redirect));
    }
    return copy;
}

}  // namespace

Func cache_write(const Func& f, MemoryType memory_type) {
    TESSERA_USER_CHECK(f.defined()) << "cache_write(" << f.name() << "): define " << f.name() << " first.";
    const std::shared_ptr<lang::FunctionContents>& original = f.function();
    auto local = lang::make_function(lang::unique_name(original->name + "_local"));
    local->pure_args = original->pure_args;
    local->output_types = original->output_types;
    RedirectSelfCalls redirect(original.get(), local);
    local->pure = redirected(original->pure, redirect);
    // The pure loops' schedule stays with f, whose loops copy the result out; the local Func's
    // start as Func's do. (The updates move, with their schedules.)
    local->pure.schedule = schedule::StageSchedule();
    for (const lang::Definition& u : original->updates) local->updates.push_back(redirected(u, redirect));

    // f now copies the local result out, keeping its pure schedule, placement and wrappers.
    std::vector<Expr> vars;
    for (const std::string& a : original->pure_args)
        vars.push_back(ir::Variable::make(Int(32), a, ir::VariableKind::PureVar));
    original->pure.values.clear();
    for (size_t i = 0; i < original->output_types.size(); i++)
        original->pure.values.push_back(ir::Call::make_func(local, vars, int(i)));
    original->pure.args = vars;
    original->pure.specializations.clear();
    original->updates.clear();
    original->touch();

    Func result(local);
    result.store_in(memory_type);
    return result;
}

}  // namespace tessera
