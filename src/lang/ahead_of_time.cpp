#include "lang/ahead_of_time.h"

#include <fstream>
#include <set>

#include "ir/printer.h"
#include "lang/function.h"
#include "lowering/lower.h"
#include "targets/aot.h"
#include "util/c_identifier.h"
#include "util/error_stream.h"

namespace tessera::lang {
namespace {

using lowering::PipelineArgument;

// Func names may hold characters C does not allow in a parameter name.
std::string c_identifier(const std::string& s) {
    std::string id;
    for (char c : s) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "_" + id;
    return id;
}

std::string describe(const PipelineArgument& a) {
    if (a.kind == PipelineArgument::Kind::Scalar) return "Param " + a.name + " (" + type_name(a.type) + ")";
    return "ImageParam " + a.name + " (" + type_name(a.type) + ", " + std::to_string(a.dimensions) +
           " dimensions)";
}

// The index in inputs of the argument that supplies a, or -1 for an input Buffer compiled in.
int find_input(const PipelineArgument& a, const std::vector<Argument>& inputs, const std::string& fn) {
    for (size_t j = 0; j < inputs.size(); j++) {
        const Argument& in = inputs[j];
        if (in.name != a.name) continue;
        TESSERA_USER_CHECK(in.is_buffer == a.is_buffer() && in.type == a.type &&
                           (!a.is_buffer() || in.dimensions == a.dimensions))
            << "the argument " << in.name << " of " << fn << " is a "
            << (in.is_buffer ? "buffer of " + type_name(in.type) + " with " + std::to_string(in.dimensions) +
                                   " dimensions"
                             : "scalar " + type_name(in.type))
            << ", but the pipeline uses " << describe(a) << ". Pass the pipeline's own ImageParam or Param.";
        return int(j);
    }
    TESSERA_USER_CHECK(a.buffer) << "the pipeline " << fn << " reads " << describe(a)
                                 << ", which is not among its arguments. Add it to the argument list.";
    return -1;
}

targets::AotFunction aot_function(const lowering::LoweredPipeline& lowered, const AheadOfTimeRequest& r) {
    targets::AotFunction f;
    f.name = r.function_name;
    std::set<std::string> names;
    for (const Argument& in : r.inputs) {
        TESSERA_USER_CHECK(util::is_c_identifier(in.name))
            << "the argument \"" << in.name << "\" of " << f.name << " is not a C identifier; rename it.";
        TESSERA_USER_CHECK(names.insert(in.name).second)
            << "two arguments of " << f.name << " are named " << in.name << "; give them distinct names.";
        f.args.push_back({in.name, in.is_buffer, in.type, in.dimensions});
    }
    int output_index = 0;
    for (const PipelineArgument& a : lowered.arguments) {
        if (a.kind != PipelineArgument::Kind::OutputBuffer) continue;
        std::string name = output_index < int(r.output_names.size()) ? r.output_names[output_index] : a.name;
        name = c_identifier(name);
        TESSERA_USER_CHECK(names.insert(name).second)
            << "the output " << name << " of " << f.name << " has the name of another argument; rename one.";
        f.args.push_back({name, true, a.type, a.dimensions});
        output_index++;
    }
    output_index = 0;
    for (const PipelineArgument& a : lowered.arguments) {
        targets::AotBinding b;
        if (a.kind == PipelineArgument::Kind::OutputBuffer) {
            b.argument = int(r.inputs.size()) + output_index++;
        } else {
            b.argument = find_input(a, r.inputs, f.name);
            if (b.argument < 0) b.constant = &a.buffer->raw;
        }
        f.bindings.push_back(b);
    }
    f.body = lowered.function;
    return f;
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    out.close();
    TESSERA_USER_CHECK(out) << "cannot write " << path
                            << ". Check that its directory exists and is writable.";
}

std::string html_escaped(const std::string& text) {
    std::string html = "<html><body><pre>\n";
    for (char c : text) {
        if (c == '<')
            html += "&lt;";
        else if (c == '>')
            html += "&gt;";
        else if (c == '&')
            html += "&amp;";
        else
            html += c;
    }
    return html + "</pre></body></html>\n";
}

}  // namespace

void compile_ahead_of_time(const Pipeline& pipeline, const AheadOfTimeRequest& request) {
    TESSERA_USER_CHECK(pipeline.defined()) << "ahead-of-time compilation of an empty Pipeline.";
    TESSERA_USER_CHECK(util::is_c_identifier(request.function_name))
        << "the function name \"" << request.function_name
        << "\" is not a C identifier (letters, digits and _, not starting with a digit). Pass another "
           "fn_name.";
    std::vector<Target> targets;
    for (const Target& t : request.targets) targets.push_back(t.defined() ? t : get_host_target());
    if (targets.empty()) targets.push_back(get_host_target());

    std::vector<std::shared_ptr<FunctionContents>> outputs;
    for (const Func& f : pipeline.outputs()) outputs.push_back(f.function());
    // The body is internal to the object; its name only has to differ from the entry points'.
    // The targets agree on the switches that change what the code contains (see targets/aot).
    const lowering::LoweredPipeline lowered =
        lowering::lower(outputs, request.function_name + ".body", lowering::lowering_options(targets[0]));
    const targets::AotFunction function = aot_function(lowered, request);

    // Machine code first, so that a failure (targets that disagree, say) leaves no header behind
    // that declares a function no library defines.
    targets::AotFiles files;
    std::map<OutputFileType, std::string> text_files;
    for (const auto& [type, path] : request.files) {
        switch (type) {
            case OutputFileType::object: files.object = path; break;
            case OutputFileType::assembly: files.assembly = path; break;
            case OutputFileType::llvm_assembly: files.llvm_assembly = path; break;
            case OutputFileType::bitcode: files.bitcode = path; break;
            case OutputFileType::static_library: files.static_library = path; break;
            default: text_files[type] = path; break;
        }
    }
    if (!files.object.empty() || !files.assembly.empty() || !files.llvm_assembly.empty() ||
        !files.bitcode.empty() || !files.static_library.empty())
        targets::compile_ahead_of_time(function, targets, files);
    for (const auto& [type, path] : text_files) {
        if (type == OutputFileType::c_header) write_text(path, targets::c_header(function));
        if (type == OutputFileType::stmt) write_text(path, ir::to_string(lowered.function.body));
        if (type == OutputFileType::stmt_html)
            write_text(path, html_escaped(ir::to_string(lowered.function.body)));
    }
}

}  // namespace tessera::lang
