#include "lowering/site_contents.h"

#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessera::lowering {
namespace {

class FindSiteContents : public ir::Visitor {
public:
    SiteContents contents;

private:
    void visit(const ir::For*) override {}
    void visit(const ir::ProducerConsumer* op) override {
        if (op->is_producer) {
            contents.produced.push_back(op->name);
            contents.produce[op->name] = op->body;
            return;  // a Func's own loops hold nothing computed at this site
        }
        contents.consume[op->name] = op->body;
        ir::Visitor::visit(op);
    }
    void visit(const ir::Realize* op) override {
        contents.realize[op->name] = op->body;
        ir::Visitor::visit(op);
    }
};

}  // namespace

SiteContents site_contents(const ir::Stmt& site_body) {
    FindSiteContents finder;
    finder.include(site_body);
    return std::move(finder.contents);
}

std::map<std::string, ir::Expr> expanded_site_lets(const ir::Stmt& site_body) {
    std::map<std::string, ir::Expr> lets;
    ir::Stmt s = site_body;
    while (const ir::LetStmt* let = s.as<ir::LetStmt>()) {
        lets[let->name] = ir::substitute(lets, let->value);
        s = let->body;
    }
    return lets;
}

bool pure_loop_is_split(const lang::FunctionContents& f, const std::string& var) {
    for (const schedule::Split& s : f.pure.schedule.splits) {
        if (s.old_var == var || (s.kind == schedule::Split::Kind::Fuse && (s.inner == var || s.outer == var)))
            return true;
    }
    return false;
}

}  // namespace tessera::lowering
