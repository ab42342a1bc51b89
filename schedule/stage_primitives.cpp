#include "schedule/stage_primitives.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>

#include "ir/equal.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "util/error_stream.h"

namespace tessera::schedule {
namespace {

bool ends_with_component(const std::string& full, const std::string& name) {
    return full == name ||
           (full.size() > name.size() && full.compare(full.size() - name.size(), name.size(), name) == 0 &&
            full[full.size() - name.size() - 1] == '.');
}

int dim_index(const StageSchedule& schedule, const std::string& name) {
    for (size_t i = 0; i < schedule.dims.size(); i++) {
        if (schedule.dims[i].var == name) return int(i);
    }
    for (size_t i = 0; i < schedule.dims.size(); i++) {
        if (schedule.dims[i].name == name) return int(i);
    }
    // A loop over a split of an RVar that a new stage took over (rfactor's intermediate) has the
    // split's full name, r.x.ro: the user names it ro. Only an unambiguous match counts.
    int found = -1;
    for (size_t i = 0; i < schedule.dims.size(); i++) {
        if (!ends_with_component(schedule.dims[i].var, name)) continue;
        if (found >= 0) return -1;
        found = int(i);
    }
    return found;
}

// The split that replaced `name`, if one did: the user names a Var that no longer has a loop.
const Split* split_of(const StageSchedule& schedule, const std::string& name) {
    for (const Split& s : schedule.splits) {
        if (s.kind != Split::Kind::Rename && ends_with_component(s.old_var, name)) return &s;
        if (s.kind == Split::Kind::Fuse &&
            (ends_with_component(s.inner, name) || ends_with_component(s.outer, name)))
            return &s;
    }
    return nullptr;
}

std::string last_component(const std::string& full) {
    size_t dot = full.rfind('.');
    return dot == std::string::npos ? full : full.substr(dot + 1);
}

void check_new_name(const StageRef& s, const StageSchedule& schedule, const std::string& name,
                    const std::string& replaced, const std::string& primitive) {
    TESSERA_USER_CHECK(!name.empty())
        << s.describe() << "." << primitive << ": a new loop needs a name. Use a named Var (Var xo(\"xo\")).";
    int existing = dim_index(schedule, name);
    TESSERA_USER_CHECK(existing < 0 || schedule.dims[existing].var == replaced)
        << s.describe() << "." << primitive << ": " << s.function.name << " already has a loop called "
        << schedule.dims[existing].var << ", so " << name
        << " would be ambiguous. Its loops, outermost first: " << describe_loops(schedule)
        << ". Use a fresh Var for the new loop.";
}

// The original Vars and RVars a loop iterates over, following the splits back.
void original_vars(const StageSchedule& schedule, const std::string& name, std::set<std::string>& out) {
    for (auto it = schedule.splits.rbegin(); it != schedule.splits.rend(); ++it) {
        const Split& s = *it;
        bool produced =
            s.kind == Split::Kind::Fuse ? s.old_var == name : (s.outer == name || s.inner == name);
        if (!produced) continue;
        if (s.kind == Split::Kind::Fuse) {
            original_vars(schedule, s.inner, out);
            original_vars(schedule, s.outer, out);
        } else {
            original_vars(schedule, s.old_var, out);
        }
        return;
    }
    out.insert(name);
}

class CollectSelfCalls : public ir::Visitor {
public:
    explicit CollectSelfCalls(const std::string& n) : name(n) {}
    std::vector<std::vector<Expr>> calls;

private:
    const std::string& name;
    void visit(const ir::Call* op) override {
        if (op->call_type == ir::CallType::Func && op->name == name) calls.push_back(op->args);
        ir::Visitor::visit(op);
    }
};

bool mentions_any(const Expr& e, const std::set<std::string>& vars) {
    for (const std::string& v : vars) {
        if (ir::uses_var(e, v)) return true;
    }
    return false;
}

std::string call_text(const std::string& f, const std::vector<Expr>& args) {
    std::ostringstream out;
    out << f << "(";
    for (size_t i = 0; i < args.size(); i++) out << (i ? ", " : "") << args[i];
    out << ")";
    return out.str();
}

// Why running the iterations over `vars` at once could change the result, or "" if it cannot:
// every iteration must write its own point of the Func and read the Func only there.
std::string loop_carried_dependency(const StageRef& s, const std::set<std::string>& vars) {
    const lang::Definition& d = s.definition();
    const std::string& f = s.function.name;
    if (d.rdom) {
        for (const auto& r : d.rdom->vars) {
            if (!vars.count(r.name)) continue;
            bool bare = std::any_of(d.args.begin(), d.args.end(), [&](const Expr& a) {
                const ir::Variable* v = a.as<ir::Variable>();
                return v && v->name == r.name;
            });
            if (!bare) {
                return "every value of " + r.name + " updates " + call_text(f, d.args) +
                       ", so different iterations update the same point";
            }
        }
    }
    CollectSelfCalls self(f);
    for (const Expr& v : d.values) self.include(v);
    for (const std::vector<Expr>& call : self.calls) {
        for (size_t i = 0; i < call.size() && i < d.args.size(); i++) {
            if (!mentions_any(call[i], vars) && !mentions_any(d.args[i], vars)) continue;
            if (!ir::equal(call[i], d.args[i])) {
                return "the iteration that writes " + call_text(f, d.args) + " reads " + call_text(f, call) +
                       ", which another iteration writes";
            }
        }
    }
    return "";
}

}  // namespace

const char* kind_primitive(ir::ForKind kind) {
    switch (kind) {
        case ir::ForKind::Parallel: return "parallel";
        case ir::ForKind::Vectorized: return "vectorize";
        case ir::ForKind::Unrolled: return "unroll";
        case ir::ForKind::GPUBlock: return "gpu_blocks";
        case ir::ForKind::GPUThread: return "gpu_threads";
        case ir::ForKind::GPULane: return "gpu_lanes";
        default: return "serial";
    }
}

lang::Definition& StageRef::definition() const {
    lang::Definition* d = stage == 0 ? &function.pure : &function.updates.at(size_t(stage) - 1);
    for (int i : specialization) d = d->specializations.at(size_t(i)).definition.get();
    return *d;
}

std::string StageRef::describe() const {
    std::string s = stage == 0 ? function.name : function.name + ".update(" + std::to_string(stage - 1) + ")";
    for (size_t i = 0; i < specialization.size(); i++) s += ".specialize(...)";
    return s;
}

std::vector<Dim> default_dims(const lang::Definition& d) {
    std::vector<Dim> dims;
    if (d.rdom) {
        for (const auto& v : d.rdom->vars) dims.push_back({v.name, v.name, ir::ForKind::Serial, true});
    }
    for (const Expr& a : d.args) {
        const ir::Variable* v = a.as<ir::Variable>();
        if (v && v->var_kind == ir::VariableKind::PureVar)
            dims.push_back({v->name, v->name, ir::ForKind::Serial, false});
    }
    return dims;
}

StageSchedule& stage_schedule(const StageRef& s) {
    lang::Definition& d = s.definition();
    if (d.schedule.dims.empty()) d.schedule.dims = default_dims(d);
    return d.schedule;
}

std::string describe_loops(const StageSchedule& schedule) {
    std::string out;
    for (auto it = schedule.dims.rbegin(); it != schedule.dims.rend(); ++it)
        out += (out.empty() ? "" : ", ") + it->var;
    return out.empty() ? "(none)" : out;
}

Dim& find_dim(const StageRef& s, const std::string& name, const std::string& primitive) {
    StageSchedule& schedule = stage_schedule(s);
    int i = dim_index(schedule, name);
    if (i >= 0) return schedule.dims[i];
    std::ostringstream why;
    if (const Split* earlier = split_of(schedule, name)) {
        if (earlier->kind == Split::Kind::Fuse) {
            why << name << " was fused into " << last_component(earlier->old_var) << ".";
        } else {
            why << name << " was already split into " << last_component(earlier->outer) << " and "
                << last_component(earlier->inner) << "; name one of those.";
        }
    } else {
        why << s.function.name << " has no loop over " << name << " in this stage.";
    }
    TESSERA_USER_ERROR << s.describe() << "." << primitive << ": " << why.str()
                       << " Its loops, outermost first: " << describe_loops(schedule) << ".";
}

void split(const StageRef& s, const std::string& old_var, const std::string& outer, const std::string& inner,
           const Expr& factor, TailStrategy tail) {
    const std::string primitive = "split(" + old_var + ", " + outer + ", " + inner + ", ...)";
    StageSchedule& schedule = stage_schedule(s);
    Dim& old = find_dim(s, old_var, primitive);
    TESSERA_USER_CHECK(factor.defined() && factor.type().is_int_or_uint() && factor.type().is_scalar())
        << s.describe() << "." << primitive << ": the split factor must be an integer expression.";
    std::optional<int64_t> constant = ir::as_const_int(factor);
    TESSERA_USER_CHECK(!constant || *constant > 0)
        << s.describe() << "." << primitive << ": the split factor is " << *constant
        << "; it must be positive.";
    TESSERA_USER_CHECK(outer != inner)
        << s.describe() << "." << primitive << ": the outer and inner loops need different names.";
    check_new_name(s, schedule, outer, old.var, primitive);
    check_new_name(s, schedule, inner, old.var, primitive);
    if (s.stage > 0) {
        TESSERA_USER_CHECK(tail != TailStrategy::ShiftInwards)
            << s.describe() << "." << primitive
            << ": TailStrategy::ShiftInwards computes some points twice, which would apply an update twice. "
               "Use GuardWithIf (or RoundUp for a Var of a Func that is not an output).";
        TESSERA_USER_CHECK(!old.is_rvar || tail != TailStrategy::RoundUp)
            << s.describe() << "." << primitive << ": " << old_var
            << " is an RVar, and TailStrategy::RoundUp would run the reduction past its domain. Use "
               "GuardWithIf.";
    }
    Split step{Split::Kind::Split, old.var, old.var + "." + outer, old.var + "." + inner, factor, tail};
    const bool is_rvar = old.is_rvar;
    const size_t i = size_t(&old - schedule.dims.data());
    schedule.dims[i] = {step.inner, inner, ir::ForKind::Serial, is_rvar};
    schedule.dims.insert(schedule.dims.begin() + long(i) + 1,
                         Dim{step.outer, outer, ir::ForKind::Serial, is_rvar});
    schedule.splits.push_back(std::move(step));
}

void fuse(const StageRef& s, const std::string& inner, const std::string& outer, const std::string& fused) {
    const std::string primitive = "fuse(" + inner + ", " + outer + ", " + fused + ")";
    StageSchedule& schedule = stage_schedule(s);
    const std::string inner_full = find_dim(s, inner, primitive).var;
    const std::string outer_full = find_dim(s, outer, primitive).var;
    TESSERA_USER_CHECK(inner_full != outer_full)
        << s.describe() << "." << primitive << ": cannot fuse a loop with itself.";
    check_new_name(s, schedule, fused, inner_full, primitive);
    int i = dim_index(schedule, inner_full), o = dim_index(schedule, outer_full);
    const bool is_rvar = schedule.dims[i].is_rvar || schedule.dims[o].is_rvar;
    Split step{Split::Kind::Fuse, inner_full + "." + fused, outer_full, inner_full, Expr(),
               TailStrategy::Auto};
    schedule.dims[i] = {step.old_var, fused, ir::ForKind::Serial, is_rvar};
    schedule.dims.erase(schedule.dims.begin() + o);
    schedule.splits.push_back(std::move(step));
}

void rename(const StageRef& s, const std::string& old_var, const std::string& new_var) {
    const std::string primitive = "rename(" + old_var + ", " + new_var + ")";
    StageSchedule& schedule = stage_schedule(s);
    Dim& old = find_dim(s, old_var, primitive);
    check_new_name(s, schedule, new_var, old.var, primitive);
    Split step{Split::Kind::Rename, old.var, old.var + "." + new_var, "", Expr(), TailStrategy::Auto};
    old.var = step.outer;
    old.name = new_var;
    schedule.splits.push_back(std::move(step));
}

void reorder(const StageRef& s, const std::vector<std::string>& vars) {
    std::string primitive = "reorder(";
    for (size_t i = 0; i < vars.size(); i++) primitive += (i ? ", " : "") + vars[i];
    primitive += ")";
    StageSchedule& schedule = stage_schedule(s);
    std::vector<int> positions;
    for (const std::string& v : vars) {
        int i = int(&find_dim(s, v, primitive) - schedule.dims.data());
        TESSERA_USER_CHECK(std::find(positions.begin(), positions.end(), i) == positions.end())
            << s.describe() << "." << primitive << ": " << v << " is named twice.";
        positions.push_back(i);
    }
    std::vector<Dim> moved;
    for (int i : positions) moved.push_back(schedule.dims[i]);
    std::sort(positions.begin(), positions.end());
    for (size_t k = 0; k < positions.size(); k++) schedule.dims[positions[k]] = moved[k];
}

void set_loop_kind(const StageRef& s, const std::string& var, ir::ForKind kind) {
    const std::string primitive = std::string(kind_primitive(kind)) + "(" + var + ")";
    Dim& dim = find_dim(s, var, primitive);
    // An atomic update may run its iterations in any order (vectorized, it runs serially).
    const bool atomic = stage_schedule(s).atomic;
    const bool runs_in_parallel = kind != ir::ForKind::Serial && kind != ir::ForKind::Unrolled;
    if (s.stage > 0 && !atomic && runs_in_parallel) {
        std::set<std::string> vars;
        original_vars(stage_schedule(s), dim.var, vars);
        std::string why = loop_carried_dependency(s, vars);
        TESSERA_USER_CHECK(why.empty())
            << s.describe() << "." << primitive << ": the iterations over " << var
            << " depend on each other: " << why << ". Only loops whose iterations touch separate points of "
            << s.function.name << " can run "
            << (kind == ir::ForKind::Vectorized ? "as vectors" : "in parallel")
            << ". To parallelize or vectorize a reduction, use rfactor.";
    }
    dim.kind = kind;
}

}  // namespace tessera::schedule
