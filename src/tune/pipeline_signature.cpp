#include "tune/pipeline_signature.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

#include "ir/printer.h"
#include "ir/visitor.h"
#include "lang/parameter.h"
#include "schedule/auto/pipeline_analysis.h"

namespace tessera::tune {
namespace {

// The parameters (ImageParams and Params) that expressions read.
class FindParameters : public ir::Visitor {
public:
    std::map<std::string, std::shared_ptr<lang::ParameterContents>> found;

private:
    using ir::Visitor::visit;
    void visit(const ir::Call* op) override {
        if (auto p = op->parameter()) found.emplace(p->name, p);
        ir::Visitor::visit(op);
    }
    void visit(const ir::Variable* op) override {
        if (op->param) found.emplace(op->param->name, op->param);
    }
};

void print_definition(std::ostream& out, const lang::Definition& d, FindParameters& params) {
    out << " (";
    for (const Expr& a : d.args) {
        out << a << ", ";
        params.include(a);
    }
    out << ") = (";
    for (const Expr& v : d.values) {
        out << v << ", ";
        params.include(v);
    }
    out << ")";
    if (d.rdom) {
        out << " over " << d.rdom->name << "[";
        for (const lang::ReductionVariable& r : d.rdom->vars)
            out << r.name << ": " << r.min << " + " << r.extent << ", ";
        out << "]";
        if (d.rdom->predicate.defined()) out << " where " << d.rdom->predicate;
    }
    for (const lang::Specialization& s : d.specializations) {
        out << " specialized " << s.condition;
        if (s.definition) print_definition(out, *s.definition, params);
    }
    out << "\n";
}

void print_parameter(std::ostream& out, const lang::ParameterContents& p) {
    out << "param " << p.name << " " << type_name(p.type) << (p.is_buffer ? " buffer" : " scalar") << " "
        << p.dimensions;
    if (p.scalar_estimate.defined()) out << " estimate " << p.scalar_estimate;
    for (const Range& r : p.estimates)
        if (r.min.defined()) out << " [" << r.min << ", " << r.extent << "]";
    out << "\n";
}

bool identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

// Each whole word that names a Func replaced by its place in realization order.
std::string rename_funcs(const std::string& text, const std::map<std::string, std::string>& names) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        if (!identifier_char(text[i])) {
            out += text[i++];
            continue;
        }
        size_t end = i;
        while (end < text.size() && identifier_char(text[end])) end++;
        const std::string word = text.substr(i, end - i);
        auto it = names.find(word);
        out += it == names.end() ? word : it->second;
        i = end;
    }
    return out;
}

}  // namespace

std::map<std::string, std::shared_ptr<lang::ParameterContents>> parameters_read(
    const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs) {
    FindParameters params;
    for (const auto& [name, f] : autoschedule::pipeline_funcs(outputs)) {
        std::ostringstream ignored;
        print_definition(ignored, f->pure, params);
        for (const lang::Definition& u : f->updates) print_definition(ignored, u, params);
    }
    return params.found;
}

std::string canonical_pipeline_text(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs) {
    const auto funcs = autoschedule::pipeline_funcs(outputs);
    std::map<std::string, std::string> names;
    for (size_t i = 0; i < funcs.size(); i++) {
        names[funcs[i].first] = "#" + std::to_string(i);
        names[funcs[i].second->name] = "#" + std::to_string(i);
    }
    std::ostringstream out;
    FindParameters params;
    for (size_t i = 0; i < funcs.size(); i++) {
        const lang::FunctionContents& f = *funcs[i].second;
        out << "func " << i << " (";
        for (const std::string& a : f.pure_args) out << a << ", ";
        out << ") ";
        for (const Type& t : f.output_types) out << type_name(t) << " ";
        if (autoschedule::has_user_schedule(f)) out << "user-scheduled";
        out << "\n";
        print_definition(out, f.pure, params);
        for (const lang::Definition& u : f.updates) print_definition(out, u, params);
        for (const schedule::Bound& b : f.schedule.estimates)
            out << "estimate " << b.var << " " << b.min << " " << b.extent << "\n";
    }
    for (const auto& [name, p] : params.found) print_parameter(out, *p);
    return rename_funcs(out.str(), names);
}

std::string signature_of(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs) {
    uint64_t hash = 1469598103934665603ull;
    for (const char c : canonical_pipeline_text(outputs)) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ull;
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

}  // namespace tessera::tune
