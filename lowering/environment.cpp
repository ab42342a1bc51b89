#include "lowering/environment.h"

#include <algorithm>
#include <set>

#include "ir/mutator.h"
#include "ir/visitor.h"
#include "lang/parameter.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

using FunctionPtr = std::shared_ptr<lang::FunctionContents>;

// The wrapper (ImageParam::in) that an image read by `consumer` reads instead, or null.
std::shared_ptr<lang::FunctionContents> image_wrapper_for(const ir::Call& image_read,
                                                          const lang::FunctionContents& consumer) {
    std::shared_ptr<lang::ParameterContents> image = image_read.parameter();
    return image ? lang::wrapper_for(image->wrappers, consumer) : nullptr;
}

// The Funcs called directly by the definitions of a Func.
class FindCallees : public ir::Visitor {
public:
    explicit FindCallees(const lang::FunctionContents& c) : consumer(c) {}
    std::vector<FunctionPtr> callees;

private:
    const lang::FunctionContents& consumer;
    std::set<const lang::FunctionContents*> seen;
    void visit(const ir::Call* op) override {
        std::shared_ptr<lang::FunctionContents> f;
        if (op->call_type == ir::CallType::Func) {
            std::shared_ptr<lang::FunctionContents> callee = op->function();
            f = callee->called_from(consumer, callee);
        } else if (op->call_type == ir::CallType::Image) {
            f = image_wrapper_for(*op, consumer);
        }
        if (f && seen.insert(f.get()).second) callees.push_back(f);
        ir::Visitor::visit(op);
    }
};

std::vector<FunctionPtr> callees_of(const lang::FunctionContents& f) {
    FindCallees finder(f);
    std::function<void(const lang::Definition&)> visit_definition = [&](const lang::Definition& d) {
        for (const Expr& e : d.args) finder.include(e);
        for (const Expr& e : d.values) finder.include(e);
        if (d.rdom) {
            for (const auto& v : d.rdom->vars) {
                finder.include(v.min);
                finder.include(v.extent);
            }
            finder.include(d.rdom->predicate);
        }
        for (const lang::Specialization& s : d.specializations) {
            finder.include(s.condition);
            if (s.definition) visit_definition(*s.definition);
        }
    };
    visit_definition(f.pure);
    for (const lang::Definition& u : f.updates) visit_definition(u);
    return finder.callees;
}

// Calls renamed to the pipeline-unique names, and redirected to the wrappers in() made for the
// consumer. A wrapper's weak hold of its image becomes a plain one: the copies in the
// environment own nothing that owns them.
class RenameCalls : public ir::Mutator {
public:
    RenameCalls(const std::map<const lang::FunctionContents*, std::string>& n,
                const lang::FunctionContents& c)
        : names(n), consumer(c) {}

private:
    const std::map<const lang::FunctionContents*, std::string>& names;
    const lang::FunctionContents& consumer;
    Expr visit(const ir::Call* op) override {
        Expr e = ir::Mutator::visit(op);
        if (op->call_type == ir::CallType::Image) return visit_image_read(*e.as<ir::Call>());
        if (op->call_type != ir::CallType::Func) return e;
        std::shared_ptr<lang::FunctionContents> callee = op->function();
        const std::string& name = names.at(callee->called_from(consumer, callee).get());
        if (name == op->name && e.same_as(ir::handle_of(op))) return e;
        auto copy = std::make_shared<ir::Call>(*e.as<ir::Call>());
        copy->name = name;
        return Expr(std::shared_ptr<const ir::ExprNode>(std::move(copy)));
    }
    Expr visit_image_read(const ir::Call& read) {
        if (std::shared_ptr<lang::FunctionContents> wrapper = image_wrapper_for(read, consumer)) {
            auto call =
                std::make_shared<ir::Call>(*ir::Call::make_func(wrapper, read.args, 0).as<ir::Call>());
            call->name = names.at(wrapper.get());
            return Expr(std::shared_ptr<const ir::ExprNode>(std::move(call)));
        }
        if (read.param || !read.parameter()) return ir::handle_of(&read);
        auto copy = std::make_shared<ir::Call>(read);
        copy->param = read.parameter();
        copy->weak_param.reset();
        return Expr(std::shared_ptr<const ir::ExprNode>(std::move(copy)));
    }
};

// Producers first, by an iterative depth-first search (pipelines may have hundreds of stages).
std::vector<FunctionPtr> realization_order(const std::vector<FunctionPtr>& outputs) {
    std::vector<FunctionPtr> order;
    std::set<const lang::FunctionContents*> done, on_stack;
    struct Frame {
        FunctionPtr f;
        std::vector<FunctionPtr> callees;
        size_t next = 0;
    };
    for (const FunctionPtr& out : outputs) {
        if (done.count(out.get())) continue;
        std::vector<Frame> stack;
        stack.push_back({out, callees_of(*out)});
        on_stack.insert(out.get());
        while (!stack.empty()) {
            Frame& top = stack.back();
            if (top.next < top.callees.size()) {
                FunctionPtr callee = top.callees[top.next++];
                if (callee == top.f || done.count(callee.get())) continue;  // self-calls in updates
                TESSERA_USER_CHECK(!on_stack.count(callee.get()))
                    << "Funcs " << top.f->name << " and " << callee->name
                    << " call each other; a pipeline must not have cycles.";
                on_stack.insert(callee.get());
                stack.push_back({callee, callees_of(*callee)});
                continue;
            }
            done.insert(top.f.get());
            on_stack.erase(top.f.get());
            order.push_back(top.f);
            stack.pop_back();
        }
    }
    return order;
}

}  // namespace

const lang::FunctionContents& Environment::function(const std::string& name) const {
    auto it = functions.find(name);
    TESSERA_INTERNAL_CHECK(it != functions.end()) << "no Func " << name << " in the environment";
    return it->second;
}

std::string Environment::func_of_buffer(const std::string& buffer) const {
    if (functions.count(buffer)) return buffer;
    const size_t dot = buffer.rfind('.');
    return dot == std::string::npos ? buffer : buffer.substr(0, dot);
}

bool Environment::is_output(const std::string& name) const {
    return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
}

std::vector<FunctionPtr> pipeline_functions(const std::vector<FunctionPtr>& outputs) {
    return realization_order(outputs);
}

void for_each_definition(lang::FunctionContents& f, const std::function<Expr(const Expr&)>& rewrite) {
    std::function<void(lang::Definition&)> rewrite_definition = [&](lang::Definition& d) {
        for (Expr& e : d.args) e = rewrite(e);
        for (Expr& e : d.values) e = rewrite(e);
        if (d.rdom) {
            auto copy = std::make_shared<lang::ReductionDomainContents>(*d.rdom);
            for (auto& v : copy->vars) {
                v.min = rewrite(v.min);
                v.extent = rewrite(v.extent);
            }
            if (copy->predicate.defined()) copy->predicate = rewrite(copy->predicate);
            d.rdom = copy;
        }
        // Specializations are shared with the user's Func: rewrite copies.
        for (lang::Specialization& s : d.specializations) {
            s.condition = rewrite(s.condition);
            if (!s.definition) continue;
            s.definition = std::make_shared<lang::Definition>(*s.definition);
            rewrite_definition(*s.definition);
        }
    };
    if (f.pure.defined()) rewrite_definition(f.pure);
    for (lang::Definition& u : f.updates) rewrite_definition(u);
}

Environment build_environment(const std::vector<FunctionPtr>& outputs) {
    for (const FunctionPtr& out : outputs) {
        TESSERA_USER_CHECK(out->defined()) << "Func " << out->name
                                           << " has no definition, so there is nothing to compute. Define it "
                                              "(e.g. "
                                           << out->name << "(x, y) = ...) before realizing it.";
    }
    std::vector<FunctionPtr> order = realization_order(outputs);
    std::map<const lang::FunctionContents*, std::string> names;
    std::set<std::string> taken;
    for (const FunctionPtr& f : order) {
        std::string name = f->name;
        for (int k = 2; taken.count(name); k++) name = f->name + "$" + std::to_string(k);
        taken.insert(name);
        names[f.get()] = name;
    }
    Environment env;
    for (const FunctionPtr& f : order) {
        RenameCalls rename(names, *f);
        lang::FunctionContents copy = *f;
        copy.name = names[f.get()];
        for_each_definition(copy, [&](const Expr& e) { return rename.mutate(e); });
        env.order.push_back(copy.name);
        env.functions.emplace(copy.name, std::move(copy));
    }
    for (const FunctionPtr& out : outputs) env.outputs.push_back(names[out.get()]);
    env.names = std::move(names);
    return env;
}

}  // namespace tessera::lowering
