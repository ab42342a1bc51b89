// Pipeline's and Func's ahead-of-time entry points, each a request to compile_ahead_of_time.

#include <filesystem>

#include "lang/ahead_of_time.h"
#include "tessera/func.h"
#include "tessera/pipeline.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

void compile_files(const Pipeline& p, std::map<OutputFileType, std::string> files,
                   const std::vector<Argument>& args, const std::string& fn_name, const Target& target) {
    lang::AheadOfTimeRequest request;
    request.files = std::move(files);
    request.inputs = args;
    request.function_name = fn_name.empty() ? p.outputs()[0].name() : fn_name;
    request.targets = {target};
    lang::compile_ahead_of_time(p, request);
}

}  // namespace

void Pipeline::compile_to(const std::map<OutputFileType, std::string>& output_files,
                          const std::vector<Argument>& args, const std::string& fn_name,
                          const Target& target) {
    compile_files(*this, output_files, args, fn_name, target);
}

void Pipeline::compile_to_multitarget_static_library(const std::string& filename_prefix,
                                                     const std::vector<Argument>& args,
                                                     const std::vector<Target>& targets) {
    TESSERA_USER_CHECK(!targets.empty())
        << "compile_to_multitarget_static_library needs at least one target.";
    lang::AheadOfTimeRequest request;
    request.files = {{OutputFileType::static_library, filename_prefix + ".a"},
                     {OutputFileType::c_header, filename_prefix + ".h"}};
    request.inputs = args;
    // As in Halide, the function is named after the file.
    request.function_name = std::filesystem::path(filename_prefix).filename().string();
    request.targets = targets;
    lang::compile_ahead_of_time(*this, request);
}

void Pipeline::compile_to_static_library(const std::string& filename_prefix,
                                         const std::vector<Argument>& args, const std::string& fn_name,
                                         const Target& target) {
    compile_files(*this,
                  {{OutputFileType::static_library, filename_prefix + ".a"},
                   {OutputFileType::c_header, filename_prefix + ".h"}},
                  args, fn_name, target);
}

void Pipeline::compile_to_file(const std::string& filename_prefix, const std::vector<Argument>& args,
                               const std::string& fn_name, const Target& target) {
    compile_files(*this,
                  {{OutputFileType::object, filename_prefix + ".o"},
                   {OutputFileType::c_header, filename_prefix + ".h"}},
                  args, fn_name, target);
}

void Pipeline::compile_to_object(const std::string& filename, const std::vector<Argument>& args,
                                 const std::string& fn_name, const Target& target) {
    compile_files(*this, {{OutputFileType::object, filename}}, args, fn_name, target);
}

void Pipeline::compile_to_header(const std::string& filename, const std::vector<Argument>& args,
                                 const std::string& fn_name, const Target& target) {
    compile_files(*this, {{OutputFileType::c_header, filename}}, args, fn_name, target);
}

void Pipeline::compile_to_assembly(const std::string& filename, const std::vector<Argument>& args,
                                   const std::string& fn_name, const Target& target) {
    compile_files(*this, {{OutputFileType::assembly, filename}}, args, fn_name, target);
}

void Pipeline::compile_to_llvm_assembly(const std::string& filename, const std::vector<Argument>& args,
                                        const std::string& fn_name, const Target& target) {
    compile_files(*this, {{OutputFileType::llvm_assembly, filename}}, args, fn_name, target);
}

void Pipeline::compile_to_bitcode(const std::string& filename, const std::vector<Argument>& args,
                                  const std::string& fn_name, const Target& target) {
    compile_files(*this, {{OutputFileType::bitcode, filename}}, args, fn_name, target);
}

void Func::compile_to_static_library(const std::string& filename_prefix, const std::vector<Argument>& args,
                                     const std::string& fn_name, const Target& target) {
    pipeline().compile_to_static_library(filename_prefix, args, fn_name, target);
}

void Func::compile_to_object(const std::string& filename, const std::vector<Argument>& args,
                             const std::string& fn_name, const Target& target) {
    pipeline().compile_to_object(filename, args, fn_name, target);
}

void Func::compile_to_header(const std::string& filename, const std::vector<Argument>& args,
                             const std::string& fn_name, const Target& target) {
    pipeline().compile_to_header(filename, args, fn_name, target);
}

void Func::compile_to_assembly(const std::string& filename, const std::vector<Argument>& args,
                               const std::string& fn_name, const Target& target) {
    pipeline().compile_to_assembly(filename, args, fn_name, target);
}

void Func::compile_to_llvm_assembly(const std::string& filename, const std::vector<Argument>& args,
                                    const std::string& fn_name, const Target& target) {
    pipeline().compile_to_llvm_assembly(filename, args, fn_name, target);
}

void Func::compile_to_bitcode(const std::string& filename, const std::vector<Argument>& args,
                              const std::string& fn_name, const Target& target) {
    pipeline().compile_to_bitcode(filename, args, fn_name, target);
}

void Func::compile_to_file(const std::string& filename_prefix, const std::vector<Argument>& args,
                           const std::string& fn_name, const Target& target) {
    pipeline().compile_to_file(filename_prefix, args, fn_name, target);
}

}  // namespace tessera
