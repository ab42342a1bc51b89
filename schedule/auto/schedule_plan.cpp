#include "schedule/auto/schedule_plan.h"

#include <map>
#include <set>
#include <sstream>

#include "schedule/auto/image_reads.h"
#include "tessera/cache.h"
#include "tessera/func.h"
#include "tessera/param.h"
#include "util/c_identifier.h"
#include "util/error_stream.h"

namespace tessera::autoschedule {
namespace {

using Kind = Directive::Kind;

bool is_func_level(Kind k) {
    return k == Kind::ComputeInline || k == Kind::ComputeRoot || k == Kind::ComputeAt ||
           k == Kind::ReorderStorage;
}

// The dimension of f's pure Var of that name (a plan read from a file may name one f lacks).
size_t dimension_of(const std::string& f, const std::vector<Var>& args, const std::string& var) {
    for (size_t d = 0; d < args.size(); d++)
        if (args[d].name() == var) return d;
    TESSERA_USER_ERROR << "the schedule specializes " << f << " on its Var " << var
                       << ", which it does not have.";
    return 0;
}

// The condition of a Specialize directive: the output at least so large in those dimensions.
Expr large_enough(const Func& f, const Directive& d) {
    Expr condition;
    for (size_t i = 0; i < d.loops.size(); i++) {
        const int dim = int(dimension_of(f.name(), f.args(), d.loops[i].name));
        const Expr holds = f.output_buffer().dim(dim).extent() >= d.at_least[i];
        condition = condition.defined() ? (condition && holds) : holds;
    }
    return condition;
}

std::string large_enough_source(const std::string& f, const std::vector<Var>& args, const Directive& d) {
    std::ostringstream out;
    for (size_t i = 0; i < d.loops.size(); i++)
        out << (i ? " && " : "") << f << ".output_buffer().dim(" << dimension_of(f, args, d.loops[i].name)
            << ").extent() >= " << d.at_least[i];
    return out.str();
}

VarOrRVar loop(const LoopName& l) { return l.is_rvar ? VarOrRVar(RVar(l.name)) : VarOrRVar(Var(l.name)); }

std::vector<VarOrRVar> loops(const Directive& d) {
    std::vector<VarOrRVar> v;
    for (const LoopName& l : d.loops) v.push_back(loop(l));
    return v;
}

void apply_to_stage(Stage stage, const Directive& d) {
    const std::vector<VarOrRVar> v = loops(d);
    switch (d.kind) {
        case Kind::Split: stage.split(v[0], v[1], v[2], d.factor, d.tail); break;
        case Kind::Fuse: stage.fuse(v[0], v[1], v[2]); break;
        case Kind::Reorder: stage.reorder(v); break;
        case Kind::Vectorize:
            d.factor ? stage.vectorize(v[0], d.factor, d.tail) : stage.vectorize(v[0]);
            break;
        case Kind::Unroll: d.factor ? stage.unroll(v[0], d.factor, d.tail) : stage.unroll(v[0]); break;
        case Kind::Parallel: stage.parallel(v[0]); break;
        default: break;
    }
}

const char* tail_name(TailStrategy t) {
    switch (t) {
        case TailStrategy::RoundUp: return "TailStrategy::RoundUp";
        case TailStrategy::GuardWithIf: return "TailStrategy::GuardWithIf";
        case TailStrategy::ShiftInwards: return "TailStrategy::ShiftInwards";
        default: return "TailStrategy::Auto";
    }
}

// C++ identifiers for the plan's Funcs, Vars and RVars, each distinct from every other.
class Identifiers {
public:
    std::string of(const std::string& kind, const std::string& name) {
        auto [it, fresh] = ids_.try_emplace(kind + ":" + name);
        if (!fresh) return it->second;
        std::string id;
        for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "_" + id;
        std::string unique = id;
        for (int k = 2; taken_.count(unique) || reserved(unique); k++) unique = id + "_" + std::to_string(k);
        taken_.insert(unique);
        return it->second = unique;
    }

private:
    static bool reserved(const std::string& s) {
        static const std::set<std::string> words = {
            "pipeline", "int",    "float", "double", "char", "short",   "long", "auto", "for", "if",
            "do",       "return", "new",   "delete", "this", "default", "case", "and",  "or",  "not"};
        return words.count(s) != 0;
    }
    std::map<std::string, std::string> ids_;
    std::set<std::string> taken_;
};

std::string directive_source(const Directive& d, Identifiers& ids, const std::string& consumer_id) {
    std::ostringstream out;
    auto name = [&](const LoopName& l) { return ids.of(l.is_rvar ? "rvar" : "var", l.name); };
    auto list = [&] {
        std::string s;
        for (size_t i = 0; i < d.loops.size(); i++) s += (i ? ", " : "") + name(d.loops[i]);
        return s;
    };
    switch (d.kind) {
        case Kind::ComputeInline: out << ".compute_inline()"; break;
        case Kind::ComputeRoot: out << ".compute_root()"; break;
        case Kind::ComputeAt: out << ".compute_at(" << consumer_id << ", " << list() << ")"; break;
        case Kind::Split:
            out << ".split(" << list() << ", " << d.factor << ", " << tail_name(d.tail) << ")";
            break;
        case Kind::Fuse: out << ".fuse(" << list() << ")"; break;
        case Kind::Reorder: out << ".reorder(" << list() << ")"; break;
        case Kind::Vectorize:
        case Kind::Unroll:
            out << (d.kind == Kind::Vectorize ? ".vectorize(" : ".unroll(") << list();
            if (d.factor) out << ", " << d.factor << ", " << tail_name(d.tail);
            out << ")";
            break;
        case Kind::Parallel: out << ".parallel(" << list() << ")"; break;
        case Kind::ReorderStorage: out << ".reorder_storage(" << list() << ")"; break;
        case Kind::Specialize: break;  // a statement of its own (plan_source)
    }
    return out.str();
}

// The parameter of the ImageParam of that name that f reads.
std::shared_ptr<lang::ParameterContents> image_param_read_by(const lang::FunctionContents& f,
                                                             const std::string& name) {
    for (const ir::Call* c : image_reads(f, name))
        if (c->parameter()) return c->parameter();
    TESSERA_USER_ERROR << "the schedule copies an ImageParam " << name << " for " << f.name
                       << ", which does not read it.";
    return nullptr;
}

// Makes one Func of the plan; `funcs` holds the plan's Funcs by name, the made ones included.
std::shared_ptr<lang::FunctionContents> make_func(
    const MadeFunc& m, const std::map<std::string, std::shared_ptr<lang::FunctionContents>>& funcs) {
    switch (m.how) {
        case MadeFunc::How::CacheWrite: return cache_write(Func(funcs.at(m.source)), m.memory).function();
        case MadeFunc::How::CacheReadImage: {
            const std::shared_ptr<lang::FunctionContents>& consumer = funcs.at(m.consumer);
            const ImageParam image(image_param_read_by(*consumer, m.source));
            return cache_read(image, {Func(consumer)}, m.memory).function();
        }
    }
    return nullptr;
}

std::string made_source(const MadeFunc& m, Identifiers& ids) {
    std::ostringstream out;
    const char* memory = memory_type_name(m.memory);
    if (m.how == MadeFunc::How::CacheWrite)
        out << "cache_write(" << ids.of("func", m.source) << ", MemoryType::" << memory << ")";
    else
        out << "cache_read(pipeline.get_image_param(\"" << m.source << "\"), {" << ids.of("func", m.consumer)
            << "}, MemoryType::" << memory << ")";
    return out.str();
}

}  // namespace

ScheduleSnapshot::ScheduleSnapshot(const SchedulePlan& plan) {
    for (const FuncPlan& p : plan.funcs)
        if (p.func) saved_.push_back({p.func, p.func->schedule, p.func->pure, p.func->updates});
}

void ScheduleSnapshot::restore() const {
    for (const Saved& s : saved_) {
        s.func->schedule = s.schedule;
        s.func->pure = s.pure;
        s.func->updates = s.updates;
        s.func->touch();
    }
}

std::map<std::string, std::shared_ptr<lang::FunctionContents>> make_funcs(const SchedulePlan& plan) {
    std::map<std::string, std::shared_ptr<lang::FunctionContents>> funcs, made;
    for (const FuncPlan& p : plan.funcs)
        if (p.func) funcs[p.name] = p.func;
    for (const FuncPlan& p : plan.funcs) {
        if (!p.made) continue;
        funcs[p.name] = made[p.name] = make_func(*p.made, funcs);
    }
    return made;
}

std::map<std::string, std::shared_ptr<lang::FunctionContents>> apply_plan(const SchedulePlan& plan) {
    const std::map<std::string, std::shared_ptr<lang::FunctionContents>> made = make_funcs(plan);
    std::map<std::string, std::shared_ptr<lang::FunctionContents>> funcs = made;
    for (const FuncPlan& p : plan.funcs)
        if (p.func) funcs[p.name] = p.func;
    for (const FuncPlan& p : plan.funcs) {
        Func f(funcs.at(p.name));
        std::optional<Stage> specialized;
        for (const Directive& d : p.directives) {
            if (d.kind == Kind::Specialize)
                specialized = f.specialize(large_enough(f, d));
            else if (d.specialization) {
                TESSERA_USER_CHECK(specialized)
                    << "the schedule schedules a specialization of " << p.name << " before making it.";
                apply_to_stage(*specialized, d);
            } else if (d.kind == Kind::ComputeInline)
                f.compute_inline();
            else if (d.kind == Kind::ComputeRoot)
                f.compute_root();
            else if (d.kind == Kind::ComputeAt) {
                Func consumer(funcs.at(d.consumer));
                d.loops[0].is_rvar ? f.compute_at(consumer, RVar(d.loops[0].name))
                                   : f.compute_at(consumer, Var(d.loops[0].name));
            } else if (d.kind == Kind::ReorderStorage) {
                std::vector<Var> vars;
                for (const LoopName& l : d.loops) vars.emplace_back(l.name);
                f.reorder_storage(vars);
            } else {
                apply_to_stage(d.stage == 0 ? Stage(f) : f.update(d.stage - 1), d);
            }
        }
    }
    return made;
}

std::string plan_source(const SchedulePlan& plan) {
    Identifiers ids;
    std::ostringstream out;
    for (const FuncPlan& p : plan.funcs)
        if (!p.made) out << "Func " << ids.of("func", p.name) << " = pipeline.get_func(" << p.index << ");\n";
    for (const FuncPlan& p : plan.funcs)
        if (p.made) out << "Func " << ids.of("func", p.name) << " = " << made_source(*p.made, ids) << ";\n";
    // Every loop named, declared once, Vars then RVars.
    std::map<std::string, bool> declared;
    for (const FuncPlan& p : plan.funcs)
        for (const Directive& d : p.directives)
            for (const LoopName& l : d.loops) declared.emplace((l.is_rvar ? "1" : "0") + l.name, l.is_rvar);
    for (const auto& [key, is_rvar] : declared) {
        const std::string name = key.substr(1);
        out << (is_rvar ? "RVar " : "Var ") << ids.of(is_rvar ? "rvar" : "var", name) << "(\"" << name
            << "\");\n";
    }
    for (const FuncPlan& p : plan.funcs) {
        const std::string f = ids.of("func", p.name);
        // The specialization first, as it copies the schedule the general definition has by then.
        for (const Directive& d : p.directives) {
            if (d.kind != Kind::Specialize) continue;
            out << f << ".specialize("
                << large_enough_source(f, p.func ? Func(p.func).args() : std::vector<Var>(), d) << ")";
            for (const Directive& s : p.directives)
                if (s.specialization) out << directive_source(s, ids, "");
            out << ";\n";
        }
        // One statement per stage, the Func's own placement first.
        std::map<int, std::string> stages;
        for (const Directive& d : p.directives) {
            if (d.kind == Kind::Specialize || d.specialization) continue;
            const int stage = is_func_level(d.kind) ? -1 : d.stage;
            stages[stage] += directive_source(d, ids, d.consumer.empty() ? "" : ids.of("func", d.consumer));
        }
        std::string pending_func_level = stages.count(-1) ? stages[-1] : "";
        if (stages.size() == 1 && stages.count(-1)) {
            out << f << pending_func_level << ";\n";
            continue;
        }
        for (const auto& [stage, calls] : stages) {
            if (stage == -1) continue;
            if (stage == 0) {
                out << f << pending_func_level << calls << ";\n";
                pending_func_level.clear();
            } else {
                if (!pending_func_level.empty()) out << f << pending_func_level << ";\n";
                pending_func_level.clear();
                out << f << ".update(" << stage - 1 << ")" << calls << ";\n";
            }
        }
    }
    return out.str();
}

}  // namespace tessera::autoschedule
