#include "lowering/loop_nest_text.h"

#include <sstream>

#include "ir/visitor.h"
#include "tessera/var.h"

namespace tessera::lowering {
namespace {

// "f.s1.r$0.x" -> "r$0.x": the loop variable without its Func and stage.
std::string short_loop_name(const std::string& name) {
    size_t stage = name.find(".s");
    if (stage == std::string::npos) return name;
    size_t dot = name.find('.', stage + 2);
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

class LoopNestText : public ir::Visitor {
public:
    std::ostringstream out;

private:
    int depth = 0;
    void line(const std::string& text) { out << std::string(2 * depth, ' ') << text << "\n"; }

    void visit(const ir::ProducerConsumer* op) override {
        line((op->is_producer ? "produce " : "consume ") + op->name + ":");
        depth++;
        include(op->body);
        depth--;
    }
    void visit(const ir::For* op) override {
        if (short_loop_name(op->name) == Var::outermost().name()) {
            include(op->body);  // the placeholder loop of one iteration
            return;
        }
        std::string kind = op->for_kind == ir::ForKind::Serial ? "for" : ir::for_kind_name(op->for_kind);
        line(kind + " " + short_loop_name(op->name) + ":");
        depth++;
        include(op->body);
        depth--;
    }
    void visit(const ir::Provide* op) override { line(op->name + "(...) = ..."); }
    // Guards of ragged tails and RDom predicates are not loops.
    void visit(const ir::IfThenElse* op) override {
        include(op->then_case);
        include(op->else_case);
    }
    void visit(const ir::Realize* op) override { include(op->body); }
};

}  // namespace

std::string loop_nest_text(const ir::Stmt& scheduled) {
    LoopNestText printer;
    printer.include(scheduled);
    return printer.out.str();
}

}  // namespace tessera::lowering
