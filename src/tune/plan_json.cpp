#include "tune/plan_json.h"

#include <map>
#include <set>
#include <sstream>

namespace tessera::tune {
namespace {

using autoschedule::Directive;
using Kind = Directive::Kind;

const std::vector<std::pair<Kind, const char*>>& kind_names() {
    static const std::vector<std::pair<Kind, const char*>> names = {{Kind::ComputeInline, "compute_inline"},
                                                                    {Kind::ComputeRoot, "compute_root"},
                                                                    {Kind::ComputeAt, "compute_at"},
                                                                    {Kind::Split, "split"},
                                                                    {Kind::Fuse, "fuse"},
                                                                    {Kind::Reorder, "reorder"},
                                                                    {Kind::Vectorize, "vectorize"},
                                                                    {Kind::Unroll, "unroll"},
                                                                    {Kind::Parallel, "parallel"},
                                                                    {Kind::ReorderStorage, "reorder_storage"},
                                                                    {Kind::Specialize, "specialize"}};
    return names;
}

const std::vector<std::pair<TailStrategy, const char*>>& tail_names() {
    static const std::vector<std::pair<TailStrategy, const char*>> names = {
        {TailStrategy::Auto, "Auto"},
        {TailStrategy::RoundUp, "RoundUp"},
        {TailStrategy::GuardWithIf, "GuardWithIf"},
        {TailStrategy::ShiftInwards, "ShiftInwards"}};
    return names;
}

using How = autoschedule::MadeFunc::How;

const std::vector<std::pair<How, const char*>>& how_names() {
    static const std::vector<std::pair<How, const char*>> names = {{How::CacheWrite, "cache_write"},
                                                                   {How::CacheReadImage, "cache_read_image"}};
    return names;
}

const std::vector<std::pair<MemoryType, const char*>>& memory_names() {
    static const std::vector<std::pair<MemoryType, const char*>> names = {{MemoryType::Auto, "Auto"},
                                                                          {MemoryType::Heap, "Heap"},
                                                                          {MemoryType::Stack, "Stack"},
                                                                          {MemoryType::Register, "Register"}};
    return names;
}

template <typename T>
const char* name_of(const std::vector<std::pair<T, const char*>>& names, T value) {
    for (const auto& [v, n] : names)
        if (v == value) return n;
    return "";
}

template <typename T>
std::optional<T> value_of(const std::vector<std::pair<T, const char*>>& names, const std::string& text) {
    for (const auto& [v, n] : names)
        if (text == n) return v;
    return std::nullopt;
}

void write_directive(std::ostream& out, const Directive& d) {
    out << "{\"kind\":\"" << name_of(kind_names(), d.kind) << "\",\"stage\":" << d.stage << ",\"loops\":[";
    for (size_t i = 0; i < d.loops.size(); i++)
        out << (i ? "," : "") << "[" << json::quote(d.loops[i].name) << ","
            << (d.loops[i].is_rvar ? "true" : "false") << "]";
    out << "]";
    if (d.factor)
        out << ",\"factor\":" << d.factor << ",\"tail\":\"" << name_of(tail_names(), d.tail) << "\"";
    if (!d.consumer.empty()) out << ",\"consumer\":" << json::quote(d.consumer);
    if (!d.at_least.empty()) {
        out << ",\"at_least\":[";
        for (size_t i = 0; i < d.at_least.size(); i++) out << (i ? "," : "") << d.at_least[i];
        out << "]";
    }
    if (d.specialization) out << ",\"specialization\":" << d.specialization;
    out << "}";
}

// The index a JSON number holds, where it is a whole number in [0, limit); else nullopt (casting a
// number out of range would be undefined).
std::optional<size_t> index_in(const json::Value* v, size_t limit) {
    if (!v || !v->is(json::Value::Kind::Number) || !(v->number >= 0) || v->number >= double(limit) ||
        v->number != double(size_t(v->number)))
        return std::nullopt;
    return size_t(v->number);
}

// How many loops each kind of directive names.
bool loop_count_fits(Kind k, size_t n) {
    switch (k) {
        case Kind::ComputeInline:
        case Kind::ComputeRoot: return n == 0;
        case Kind::ComputeAt:
        case Kind::Vectorize:
        case Kind::Unroll:
        case Kind::Parallel: return n == 1;
        case Kind::Split:
        case Kind::Fuse: return n == 3;
        case Kind::Reorder:
        case Kind::ReorderStorage:
        case Kind::Specialize: return n >= 1;
    }
    return false;
}

std::optional<Directive> read_directive(const json::Value& v, std::string* why) {
    auto fail = [&](const std::string& what) -> std::optional<Directive> {
        *why = "a directive " + what;
        return std::nullopt;
    };
    const json::Value* kind = v.find("kind");
    const json::Value* stage = v.find("stage");
    const json::Value* loops = v.find("loops");
    const std::optional<size_t> stage_index = index_in(stage, 1 << 16);
    if (!kind || !kind->is(json::Value::Kind::String) || !stage_index || !loops ||
        !loops->is(json::Value::Kind::Array))
        return fail("lacks its kind, stage or loops");
    auto k = value_of(kind_names(), kind->string);
    if (!k) return fail("has the unknown kind '" + kind->string + "'");
    Directive d{*k, int(*stage_index), {}, 0, TailStrategy::Auto, ""};
    for (const json::Value& loop : loops->array) {
        if (!loop.is(json::Value::Kind::Array) || loop.array.size() != 2 ||
            !loop.array[0].is(json::Value::Kind::String) || !loop.array[1].is(json::Value::Kind::Bool))
            return fail("names a loop that is not [name, is_rvar]");
        d.loops.push_back({loop.array[0].string, loop.array[1].boolean});
    }
    if (!loop_count_fits(d.kind, d.loops.size()))
        return fail("'" + kind->string + "' has the wrong number of loops");
    if (const json::Value* factor = v.find("factor")) {
        const std::optional<size_t> f = index_in(factor, (1 << 20) + 1);
        if (!f || *f < 1) return fail("has a factor that is not a positive integer");
        d.factor = int(*f);
        const json::Value* tail = v.find("tail");
        auto t =
            tail && tail->is(json::Value::Kind::String) ? value_of(tail_names(), tail->string) : std::nullopt;
        if (!t) return fail("has a factor but no known tail strategy");
        d.tail = *t;
    }
    if (d.kind == Kind::Split && d.factor == 0) return fail("'split' lacks its factor");
    if (const json::Value* consumer = v.find("consumer"); consumer && consumer->is(json::Value::Kind::String))
        d.consumer = consumer->string;
    if (d.kind == Kind::ComputeAt && d.consumer.empty()) return fail("'compute_at' lacks its consumer");
    if (const json::Value* at_least = v.find("at_least");
        at_least && at_least->is(json::Value::Kind::Array)) {
        for (const json::Value& n : at_least->array) {
            const std::optional<size_t> extent = index_in(&n, (1 << 20) + 1);
            if (!extent || *extent < 1)
                return fail("has an extent in 'at_least' that is not a positive integer");
            d.at_least.push_back(int(*extent));
        }
    }
    if (d.kind == Kind::Specialize && d.at_least.size() != d.loops.size())
        return fail("'specialize' lacks an extent for each of its Vars");
    if (const json::Value* special = v.find("specialization")) {
        if (!index_in(special, 2) || d.stage != 0) return fail("names a specialization it cannot have");
        d.specialization = int(*index_in(special, 2));
    }
    return d;
}

// An entry of a Func of the pipeline, matched by its index in realization order.
std::optional<autoschedule::FuncPlan> pipeline_func_plan(
    const json::Value& entry, const std::string& name,
    const std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>>& funcs,
    std::string* why) {
    const std::optional<size_t> at = index_in(entry.find("index"), funcs.size());
    if (!at) {
        *why = "the schedule names a Func '" + name + "' that this pipeline does not have";
        return std::nullopt;
    }
    return autoschedule::FuncPlan{funcs[*at].first, funcs[*at].second, *at, {}, std::nullopt};
}

// An entry of a Func the plan makes; what it is made from must be known by then. Adds its name to
// `renamed` and `known`.
std::optional<autoschedule::FuncPlan> made_func_plan(const json::Value& entry, const std::string& name,
                                                     std::map<std::string, std::string>& renamed,
                                                     std::set<std::string>& known, std::string* why) {
    const json::Value& made = *entry.find("made");
    auto text = [&](const char* key) -> std::optional<std::string> {
        const json::Value* v = made.find(key);
        if (!v || !v->is(json::Value::Kind::String)) return std::nullopt;
        return v->string;
    };
    const std::optional<std::string> how_text = text("how"), source = text("source"),
                                     memory_text = text("memory");
    const std::optional<How> how = how_text ? value_of(how_names(), *how_text) : std::nullopt;
    const std::optional<MemoryType> memory =
        memory_text ? value_of(memory_names(), *memory_text) : std::nullopt;
    if (!how || !source || !memory || known.count(name)) {
        *why = "the Func '" + name + "' that the schedule makes lacks how, from what or in which memory";
        return std::nullopt;
    }
    autoschedule::MadeFunc m{*how, *source, text("consumer").value_or(""), *memory};
    // A cache_write's source and a copy's consumer are Funcs the plan has by then.
    std::string& func = *how == How::CacheWrite ? m.source : m.consumer;
    auto it = renamed.find(func);
    if (it == renamed.end() || !known.count(it->second)) {
        *why = "the schedule makes '" + name + "' from '" + func + "', which it does not have by then";
        return std::nullopt;
    }
    func = it->second;
    renamed[name] = name;
    known.insert(name);
    return autoschedule::FuncPlan{name, nullptr, 0, {}, m};
}

}  // namespace

std::string plan_to_json(const autoschedule::SchedulePlan& plan) {
    std::ostringstream out;
    out << "[";
    for (size_t f = 0; f < plan.funcs.size(); f++) {
        const autoschedule::FuncPlan& p = plan.funcs[f];
        out << (f ? "," : "") << "{";
        if (p.made) {
            out << "\"made\":{\"how\":\"" << name_of(how_names(), p.made->how)
                << "\",\"source\":" << json::quote(p.made->source);
            if (!p.made->consumer.empty()) out << ",\"consumer\":" << json::quote(p.made->consumer);
            out << ",\"memory\":\"" << name_of(memory_names(), p.made->memory) << "\"},";
        } else {
            out << "\"index\":" << p.index << ",";
        }
        out << "\"name\":" << json::quote(p.name) << ",\"directives\":[";
        for (size_t i = 0; i < p.directives.size(); i++) {
            if (i) out << ",";
            write_directive(out, p.directives[i]);
        }
        out << "]}";
    }
    out << "]";
    return out.str();
}

std::optional<autoschedule::SchedulePlan> plan_from_json(
    const json::Value& value,
    const std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>>& funcs,
    std::string* why) {
    if (!value.is(json::Value::Kind::Array)) {
        *why = "the schedule is not a list of Funcs";
        return std::nullopt;
    }
    // Funcs are matched by their place in realization order: another program building the same
    // pipeline may number its unnamed Funcs differently. The Funcs the plan makes keep their names.
    std::map<std::string, std::string> renamed;
    for (const json::Value& entry : value.array) {
        const json::Value* index = entry.find("index");
        const json::Value* name = entry.find("name");
        const std::optional<size_t> i = index_in(index, funcs.size());
        if (i && name && name->is(json::Value::Kind::String)) renamed[name->string] = funcs[*i].first;
    }
    std::set<std::string> known;  // the pipeline's Funcs, and those made so far
    for (const auto& [original, name] : renamed) known.insert(name);
    autoschedule::SchedulePlan plan;
    for (const json::Value& entry : value.array) {
        const json::Value* name = entry.find("name");
        const json::Value* directives = entry.find("directives");
        if (!name || !name->is(json::Value::Kind::String) || !directives ||
            !directives->is(json::Value::Kind::Array)) {
            *why = "a Func of the schedule lacks its name or directives";
            return std::nullopt;
        }
        std::optional<autoschedule::FuncPlan> p =
            entry.find("made") ? made_func_plan(entry, name->string, renamed, known, why)
                               : pipeline_func_plan(entry, name->string, funcs, why);
        if (!p) return std::nullopt;
        bool specialized = false;
        for (const json::Value& d : directives->array) {
            auto directive = read_directive(d, why);
            if (!directive) return std::nullopt;
            specialized = specialized || directive->kind == Kind::Specialize;
            if (directive->specialization && !specialized) {
                *why = "the schedule schedules a specialization of '" + p->name + "' before making it";
                return std::nullopt;
            }
            if (!directive->consumer.empty()) {
                auto it = renamed.find(directive->consumer);
                if (it == renamed.end()) {
                    *why = "the schedule computes a Func at '" + directive->consumer +
                           "', which it does not schedule";
                    return std::nullopt;
                }
                directive->consumer = it->second;
            }
            p->directives.push_back(std::move(*directive));
        }
        plan.funcs.push_back(std::move(*p));
    }
    return plan;
}

}  // namespace tessera::tune
