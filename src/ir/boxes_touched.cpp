// boxes_touched: the regions of Funcs and images that a piece of IR reads and writes, the core of
// bounds inference.

#include "ir/interval.h"
#include "ir/interval_ends.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "util/error_stream.h"

namespace tessera::ir {
namespace {

class BoxesTouched : public Visitor {
public:
    explicit BoxesTouched(const std::map<std::string, Interval>& s) : scope(s) {}
    std::map<std::string, Box> boxes;

private:
    std::map<std::string, Interval> scope;
    using Saved = std::pair<std::string, std::optional<Interval>>;

    void touch(const std::string& name, const std::vector<Expr>& coordinates) {
        Box box;
        for (const Expr& c : coordinates) box.push_back(bounds_of_expr(c, scope));
        auto [it, inserted] = boxes.emplace(name, box);
        if (inserted) return;
        TESSERA_INTERNAL_CHECK(it->second.size() == box.size())
            << name << " is accessed with " << it->second.size() << " and with " << box.size() << " coordinates";
        for (size_t d = 0; d < box.size(); d++) it->second[d] = interval_union(it->second[d], box[d]);
    }

    Saved bind(const std::string& name, const Interval& interval) {
        auto it = scope.find(name);
        Saved saved{name, it == scope.end() ? std::nullopt : std::optional<Interval>(it->second)};
        scope[name] = interval;
        return saved;
    }

    void unbind(std::vector<Saved>& saved) {
        for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
            if (it->second) scope[it->first] = *it->second;
            else scope.erase(it->first);
        }
        saved.clear();
    }

    void visit(const Call* op) override {
        if (op->call_type == CallType::Func || op->call_type == CallType::Image) touch(op->name, op->args);
        Visitor::visit(op);
    }

    void visit(const Provide* op) override {
        touch(op->name, op->args);
        Visitor::visit(op);
    }

    // Let and LetStmt chains: bind each value's interval in turn, by iteration.
    template <typename LetT>
    void let_chain(const LetT* op) {
        std::vector<Saved> saved;
        const LetT* let = op;
        while (true) {
            include(let->value);
            saved.push_back(bind(let->name, bounds_of_expr(let->value, scope)));
            const LetT* next = let->body.template as<LetT>();
            if (!next) break;
            let = next;
        }
        include(let->body);
        unbind(saved);
    }

    void visit(const Let* op) override { let_chain(op); }
    void visit(const LetStmt* op) override { let_chain(op); }

    void visit(const For* op) override {
        include(op->min);
        include(op->extent);
        Interval min = bounds_of_expr(op->min, scope), extent = bounds_of_expr(op->extent, scope);
        Expr last = interval_ends::sub(interval_ends::add(min.max, extent.max), make_one(Int(32)));
        std::vector<Saved> saved{bind(op->name, Interval(min.min, last))};
        include(op->body);
        unbind(saved);
    }

    void visit(const IfThenElse* op) override {
        include(op->condition);
        std::vector<ScopeChange> changes = narrow_scope(op->condition, true, scope);
        include(op->then_case);
        restore_scope(changes, scope);
        if (!op->else_case.defined()) return;
        changes = narrow_scope(op->condition, false, scope);
        include(op->else_case);
        restore_scope(changes, scope);
    }

    void visit(const Select* op) override {
        include(op->condition);
        std::vector<ScopeChange> changes = narrow_scope(op->condition, true, scope);
        include(op->true_value);
        restore_scope(changes, scope);
        changes = narrow_scope(op->condition, false, scope);
        include(op->false_value);
        restore_scope(changes, scope);
    }
};

}  // namespace

std::map<std::string, Box> boxes_touched(const Expr& e, const std::map<std::string, Interval>& scope) {
    BoxesTouched b(scope);
    b.include(e);
    return std::move(b.boxes);
}

std::map<std::string, Box> boxes_touched(const Stmt& s, const std::map<std::string, Interval>& scope) {
    BoxesTouched b(scope);
    b.include(s);
    return std::move(b.boxes);
}

}  // namespace tessera::ir
