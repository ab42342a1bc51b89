#include "tessera/pipeline.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>

#include "ir/printer.h"
#include "lang/compiled_pipeline.h"
#include "lang/function.h"
#include "lang/parameter.h"
#include "lowering/environment.h"
#include "lowering/lower.h"
#include "targets/jit.h"
#include "util/error_stream.h"

namespace tessera {
namespace lang {

struct PipelineContents {
    std::vector<std::shared_ptr<FunctionContents>> outputs;
    std::shared_ptr<CompiledPipeline> compiled;
};

}  // namespace lang

namespace {

using lowering::PipelineArgument;

thread_local std::string last_pipeline_error;

void capture_pipeline_error(void*, const char* message) { last_pipeline_error = message ? message : ""; }

// Runs compiled code and turns a nonzero result into a RuntimeError carrying the message the
// code reported.
void run_compiled(const targets::JITModule& module, void** args) {
    static std::once_flag installed;
    std::call_once(installed, [] { tessera_set_error_handler(capture_pipeline_error); });
    last_pipeline_error.clear();
    const int32_t code = module.call(args);
    if (code != 0) {
        throw RuntimeError("Error: " + (last_pipeline_error.empty()
                                            ? "the pipeline failed with code " + std::to_string(code)
                                            : last_pipeline_error));
    }
}

std::shared_ptr<lang::CompiledPipeline> compile(
    const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs, const Target& target) {
    const auto start = std::chrono::steady_clock::now();
    auto compiled = std::make_shared<lang::CompiledPipeline>();
    const auto functions = lowering::pipeline_functions(outputs);
    for (const auto& f : functions) {
        compiled->signature.emplace_back(f, f->version);
        for (const auto& buffer : f->output_buffers)
            compiled->constraint_signature.emplace_back(buffer, buffer->constraints_version);
    }
    lowering::LoweredPipeline lowered =
        lowering::lower(outputs, "tessera_pipeline", lowering::lowering_options(target));
    for (const lowering::PipelineArgument& a : lowered.arguments)
        if (a.param && a.param->is_buffer)
            compiled->constraint_signature.emplace_back(a.param, a.param->constraints_version);
    compiled->module = targets::jit_compile(lowered.function, target);
    compiled->target = target;
    compiled->arguments = std::move(lowered.arguments);
    compiled->loop_nest = std::move(lowered.loop_nest);
    compiled->compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return compiled;
}

void* argument_address(const PipelineArgument& a, const std::vector<Buffer<>>& outputs, size_t& next_output) {
    switch (a.kind) {
        case PipelineArgument::Kind::OutputBuffer: return outputs[next_output++].raw_buffer();
        case PipelineArgument::Kind::InputBuffer:
            if (a.buffer) return &a.buffer->raw;
            if (!a.param->buffer) {
                TESSERA_RUNTIME_ERROR << "ImageParam " << a.name << " is not set. Call " << a.name
                                      << ".set(buffer) before realizing the pipeline.";
            }
            return &a.param->buffer->raw;
        case PipelineArgument::Kind::Scalar: return a.param->scalar;
    }
    return nullptr;
}

}  // namespace

namespace lang {

bool CompiledPipeline::is_current() const {
    for (const auto& [weak, version] : signature) {
        auto f = weak.lock();
        if (!f || f->version != version) return false;
    }
    for (const auto& [weak, version] : constraint_signature) {
        auto p = weak.lock();
        if (!p || p->constraints_version != version) return false;
    }
    // Code compiled for an input Buffer dense in dimension 0 would refuse a view of it that is not.
    for (const lowering::PipelineArgument& a : arguments) {
        if (a.buffer && a.dense_dimension_0 &&
            !(a.buffer->raw.dimensions > 0 && a.buffer->raw.dim[0].stride == 1))
            return false;
    }
    return true;
}

}  // namespace lang

// --- Realization ---

Realization::Realization(std::vector<Buffer<>> buffers) : buffers_(std::move(buffers)) {
    TESSERA_USER_CHECK(!buffers_.empty()) << "a Realization needs at least one buffer.";
}

void Realization::check_single_output() const {
    TESSERA_USER_CHECK(buffers_.size() == 1) << "this Realization holds " << buffers_.size()
                                             << " buffers (the pipeline has several outputs or a Tuple); "
                                                "take one with operator[] instead of converting "
                                                "the whole Realization to a Buffer.";
}

// --- Pipeline ---

Pipeline::Pipeline(const Func& output) : contents_(std::make_shared<lang::PipelineContents>()) {
    contents_->outputs.push_back(output.function());
    contents_->compiled = output.function()->jit_cache;
}

Pipeline::Pipeline(const std::vector<Func>& outputs) : contents_(std::make_shared<lang::PipelineContents>()) {
    TESSERA_USER_CHECK(!outputs.empty()) << "a Pipeline needs at least one output Func.";
    for (const Func& f : outputs) contents_->outputs.push_back(f.function());
    if (outputs.size() == 1) contents_->compiled = outputs[0].function()->jit_cache;
}

std::vector<Func> Pipeline::outputs() const {
    std::vector<Func> funcs;
    for (const auto& f : contents_->outputs) funcs.emplace_back(f);
    return funcs;
}

void Pipeline::compile_jit(const Target& requested) {
    TESSERA_USER_CHECK(contents_) << "compile_jit() of an empty Pipeline.";
    const Target target = requested.defined() ? requested : get_jit_target_from_environment();
    if (contents_->compiled && contents_->compiled->is_current() && contents_->compiled->target == target)
        return;
    contents_->compiled = compile(contents_->outputs, target);
    if (contents_->outputs.size() == 1) contents_->outputs[0]->jit_cache = contents_->compiled;
}

Realization Pipeline::realize(std::vector<int32_t> sizes, const Target& target) {
    compile_jit(target);
    std::vector<Buffer<>> buffers;
    for (const PipelineArgument& a : contents_->compiled->arguments) {
        if (a.kind != PipelineArgument::Kind::OutputBuffer) continue;
        if (int(sizes.size()) != a.dimensions) {
            TESSERA_RUNTIME_ERROR << "realize() of " << a.func << " with " << sizes.size() << " size"
                                  << (sizes.size() == 1 ? "" : "s") << ", but " << a.func << " has "
                                  << a.dimensions << " dimensions. Pass one size per dimension.";
        }
        buffers.emplace_back(a.type, std::vector<int>(sizes.begin(), sizes.end()), a.name);
    }
    Realization r(std::move(buffers));
    realize(r, target);
    // What GPU kernels wrote is on the device: new buffers come back with it on the host (as
    // Halide's do; buffers passed in keep it on the device until copy_to_host()).
    for (const Buffer<>& b : r.buffers()) b.copy_to_host();
    return r;
}

void Pipeline::realize(Realization outputs, const Target& target) {
    compile_jit(target);
    const lang::CompiledPipeline& c = *contents_->compiled;
    size_t expected = 0;
    for (const PipelineArgument& a : c.arguments) expected += a.kind == PipelineArgument::Kind::OutputBuffer;
    if (outputs.size() != expected) {
        TESSERA_RUNTIME_ERROR << "realize() into " << outputs.size() << " buffer"
                              << (outputs.size() == 1 ? "" : "s") << ", but the pipeline produces "
                              << expected << " (one per output Func and Tuple element).";
    }
    for (size_t i = 0; i < outputs.size(); i++) {
        if (!outputs[i].defined())
            TESSERA_RUNTIME_ERROR << "realize() into an undefined buffer (output " << i << ").";
    }
    std::vector<void*> args;
    size_t next_output = 0;
    for (const PipelineArgument& a : c.arguments)
        args.push_back(argument_address(a, outputs.buffers(), next_output));
    run_compiled(*c.module, args.data());
}

std::string Pipeline::loop_nest() const {
    // Loops for the GPU are shown whatever the target: what runs them is not the question here.
    lowering::LoweringOptions options;
    options.gpu = options.emulate_gpu = true;
    return lowering::lower(contents_->outputs, "tessera_pipeline", options).loop_nest;
}

void Pipeline::print_loop_nest() const { std::cout << loop_nest(); }

void Pipeline::compile_to_lowered_stmt(const std::string& filename, const std::vector<Argument>&,
                                       StmtOutputFormat format, const Target& target) {
    lowering::LoweredPipeline lowered =
        lowering::lower(contents_->outputs, "tessera_pipeline", lowering::lowering_options(target));
    std::ofstream out(filename);
    if (!out) TESSERA_USER_ERROR << "compile_to_lowered_stmt: cannot write " << filename << ".";
    const std::string text = ir::to_string(lowered.function.body);
    if (format == StmtOutputFormat::Text) {
        out << text;
        return;
    }
    out << "<html><body><pre>\n";
    for (char c : text) {
        if (c == '<')
            out << "&lt;";
        else if (c == '>')
            out << "&gt;";
        else if (c == '&')
            out << "&amp;";
        else
            out << c;
    }
    out << "</pre></body></html>\n";
}

double Pipeline::last_compile_time_ms() const {
    return contents_->compiled ? contents_->compiled->compile_ms : 0.0;
}

}  // namespace tessera
