#include "lang/associative_update.h"

#include "ir/equal.h"
#include "ir/visitor.h"

namespace tessera::lang {
namespace {

bool is_self_call(const Expr& e, const FunctionContents& f, const std::vector<Expr>& args) {
    const ir::Call* call = e.as<ir::Call>();
    if (!call || call->call_type != ir::CallType::Func || call->function().get() != &f) return false;
    if (call->args.size() != args.size()) return false;
    for (size_t i = 0; i < args.size(); i++) {
        if (!ir::equal(call->args[i], args[i])) return false;
    }
    return true;
}

template <typename T>
std::optional<AssociativeUpdate> match(const Expr& value, const FunctionContents& f,
                                       const std::vector<Expr>& args) {
    const T* op = value.as<T>();
    if (!op) return std::nullopt;
    if (is_self_call(op->a, f, args) && !reads_func(op->b, f))
        return AssociativeUpdate{ir::IRKind(T::static_kind), op->b};
    if (is_self_call(op->b, f, args) && !reads_func(op->a, f))
        return AssociativeUpdate{ir::IRKind(T::static_kind), op->a};
    return std::nullopt;
}

}  // namespace

bool reads_func(const Expr& e, const FunctionContents& f) {
    class Find : public ir::Visitor {
    public:
        explicit Find(const FunctionContents& f) : f(f) {}
        const FunctionContents& f;
        bool found = false;

    private:
        void visit(const ir::Call* op) override {
            found = found || (op->call_type == ir::CallType::Func && op->function().get() == &f);
            ir::Visitor::visit(op);
        }
    } find(f);
    find.include(e);
    return find.found;
}

std::optional<AssociativeUpdate> associative_update(const Expr& value, const FunctionContents& f,
                                                    const std::vector<Expr>& args) {
    if (auto m = match<ir::Add>(value, f, args)) return m;
    if (auto m = match<ir::Mul>(value, f, args)) return m;
    if (auto m = match<ir::Min>(value, f, args)) return m;
    if (auto m = match<ir::Max>(value, f, args)) return m;
    return std::nullopt;
}

}  // namespace tessera::lang
