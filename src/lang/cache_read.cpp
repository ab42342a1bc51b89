// cache_read: a Func that copies a producer or an input for some consumers, which then read it.

#include <functional>

#include "ir/mutator.h"
#include "lang/function.h"
#include "lang/parameter.h"
#include "tessera/cache.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

// Rewrites reads of one input (a Buffer or an ImageParam) into calls to the Func that copies it.
class RedirectImageReads : public ir::Mutator {
public:
    RedirectImageReads(std::shared_ptr<lang::BufferContents> buffer,
                       std::shared_ptr<lang::ParameterContents> param,
                       std::shared_ptr<lang::FunctionContents> copy)
        : buffer_(std::move(buffer)), param_(std::move(param)), copy_(std::move(copy)) {}
    bool changed = false;

private:
    using ir::Mutator::visit;
    Expr visit(const ir::Call* op) override {
        Expr call = ir::Mutator::visit(op);
        const ir::Call* c = call.as<ir::Call>();
        if (!c || c->call_type != ir::CallType::Image) return call;
        const bool same = buffer_ ? c->image == buffer_ : c->param == param_;
        if (!same) return call;
        changed = true;
        return ir::Call::make_func(copy_, c->args, 0);
    }
    std::shared_ptr<lang::BufferContents> buffer_;
    std::shared_ptr<lang::ParameterContents> param_;
    std::shared_ptr<lang::FunctionContents> copy_;
};

void redirect(lang::Definition& d, RedirectImageReads& redirect_reads) {
    for (Expr& a : d.args) a = redirect_reads.mutate(a);
    for (Expr& v : d.values) v = redirect_reads.mutate(v);
    for (lang::Specialization& s : d.specializations) {
        if (s.definition) redirect(*s.definition, redirect_reads);
    }
}

// The copy of an input for consumers: copy(x0, ...) = input(x0, ...), read by the consumers in
// place of the input.
Func cache_read_input(const std::string& input_name, int dimensions,
                      const std::function<Expr(const std::vector<Expr>&)>& read_input,
                      std::shared_ptr<lang::BufferContents> buffer,
                      std::shared_ptr<lang::ParameterContents> param, const std::vector<Func>& consumers,
                      MemoryType memory_type) {
    TESSERA_USER_CHECK(!consumers.empty())
        << "cache_read(" << input_name << ", {}): name the Funcs that should read the copy of " << input_name
        << ".";
    std::string name = input_name + "_cached";
    for (const Func& c : consumers) name += "_" + c.name();
    Func copy(lang::unique_name(name));
    std::vector<Var> vars;
    for (int d = 0; d < dimensions; d++) vars.push_back(Var("v" + std::to_string(d)));
    std::vector<Expr> args(vars.begin(), vars.end());
    copy(vars) = read_input(args);
    RedirectImageReads redirect_reads(std::move(buffer), std::move(param), copy.function());
    for (const Func& c : consumers) {
        lang::FunctionContents& f = *c.function();
        redirect_reads.changed = false;
        redirect(f.pure, redirect_reads);
        for (lang::Definition& u : f.updates) redirect(u, redirect_reads);
        TESSERA_USER_CHECK(redirect_reads.changed)
            << "cache_read(" << input_name << ", ...): " << c.name() << " does not read " << input_name
            << ". Name only consumers of " << input_name << ".";
        f.touch();
    }
    copy.store_in(memory_type);
    return copy;
}

}  // namespace

Func cache_read(const Func& f, const std::vector<Func>& consumers, MemoryType memory_type) {
    TESSERA_USER_CHECK(!consumers.empty())
        << "cache_read(" << f.name() << ", {}): name the Funcs that should read the copy of " << f.name()
        << ".";
    Func copy = Func(f).in(consumers);
    copy.store_in(memory_type);
    return copy;
}

Func cache_read(const ImageParam& image, const std::vector<Func>& consumers, MemoryType memory_type) {
    return cache_read_input(
        image.name(), image.dimensions(), [&](const std::vector<Expr>& args) { return image(args); }, nullptr,
        image.contents(), consumers, memory_type);
}

namespace lang {

Func cache_read_buffer(const std::shared_ptr<BufferContents>& buffer, Type type,
                       const std::vector<Func>& consumers, MemoryType memory_type) {
    return cache_read_input(
        buffer->name, buffer->raw.dimensions,
        [&](const std::vector<Expr>& args) { return buffer_access(buffer, type, args); }, buffer, nullptr,
        consumers, memory_type);
}

}  // namespace lang
}  // namespace tessera
