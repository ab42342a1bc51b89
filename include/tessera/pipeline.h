#pragma once
// Pipeline: one or more output Funcs compiled and run together. Realization: the buffers a
// pipeline produces, one per output value.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/auto_schedule.h"
#include "tessera/buffer.h"
#include "tessera/func.h"
#include "tessera/param.h"
#include "tessera/target.h"

namespace tessera {

namespace lang {
struct PipelineContents;
}

class Realization {
public:
    explicit Realization(std::vector<Buffer<>> buffers);
    template <typename T, int Dims>
    Realization(const Buffer<T, Dims>& b) : Realization(std::vector<Buffer<>>{Buffer<>(b)}) {}
    template <typename T0, int D0, typename T1, int D1, typename... Rest>
    Realization(const Buffer<T0, D0>& b0, const Buffer<T1, D1>& b1, const Rest&... rest)
        : Realization(std::vector<Buffer<>>{Buffer<>(b0), Buffer<>(b1), Buffer<>(rest)...}) {}

    size_t size() const { return buffers_.size(); }
    Buffer<>& operator[](size_t i) { return buffers_[i]; }
    const Buffer<>& operator[](size_t i) const { return buffers_[i]; }
    template <typename T, int Dims>
    operator Buffer<T, Dims>() const {
        check_single_output();
        return Buffer<T, Dims>(buffers_[0]);
    }
    const std::vector<Buffer<>>& buffers() const { return buffers_; }

private:
    void check_single_output() const;
    std::vector<Buffer<>> buffers_;
};

// An argument of a compiled pipeline, named in the order a caller passes it.
struct Argument {
    std::string name;
    bool is_buffer = false;
    Type type;
    int dimensions = 0;
    Argument() = default;
    Argument(const std::string& n, bool buffer, Type t, int dims)
        : name(n), is_buffer(buffer), type(t), dimensions(dims) {}
    template <typename T>
    Argument(const Param<T>& p) : Argument(p.name(), false, p.type(), 0) {}
    Argument(const ImageParam& p) : Argument(p.name(), true, p.type(), p.dimensions()) {}
    template <typename T, int Dims>
    Argument(const Buffer<T, Dims>& b) : Argument(b.name(), true, b.type(), b.dimensions()) {}
};

class Pipeline {
public:
    Pipeline() = default;
    Pipeline(const Func& output);
    Pipeline(const std::vector<Func>& outputs);

    std::vector<Func> outputs() const;
    bool defined() const { return contents_ != nullptr; }
    // The index-th Func of the pipeline in realization order (producers first), as the source that
    // auto_schedule returns names them.
    Func get_func(size_t index) const;
    // The ImageParam of that name that the pipeline reads, as the source that auto_schedule returns
    // names the inputs it copies (cache_read).
    ImageParam get_image_param(const std::string& name) const;

    // Chooses a schedule for every Func whose schedule the user has not written, with the named
    // automatic scheduler ("Tessera"), for the target and the machine; applies it and returns it as
    // C++ source. Every output needs an estimate of its size (Func::set_estimate or
    // set_estimates), and every input read at an index that depends on its size one too.
    AutoSchedulerResults auto_schedule(const std::string& autoscheduler_name, const Target& target,
                                       const MachineParams& params = MachineParams::generic());
    // With the default automatic scheduler.
    AutoSchedulerResults auto_schedule(const Target& target,
                                       const MachineParams& params = MachineParams::generic());
    // Another automatic scheduler, by name: it applies its schedule to the pipeline's Funcs and fills
    // in the results (schedule_source at least).
    using AutoSchedulerFn =
        std::function<void(const Pipeline&, const Target&, const MachineParams&, AutoSchedulerResults*)>;
    static void add_autoscheduler(const std::string& autoscheduler_name,
                                  const AutoSchedulerFn& autoscheduler);
    static void set_default_autoscheduler_name(const std::string& autoscheduler_name);
    static std::string get_default_autoscheduler_name();
    // Applies the fastest schedule that tessera::autotune (autotune.h) recorded in records_file for
    // this pipeline (the same definitions and estimates) and this target, and returns whether there
    // was one. Records of other pipelines or targets are passed over; lines that cannot be read, a
    // warning on stderr. Funcs the user scheduled keep their schedules.
    bool apply_tuning_records(const std::string& records_file, const Target& target = Target());

    // Buffers that realize() makes hold the results on the host. Buffers passed in keep what GPU
    // kernels wrote on the device (device_dirty()) until copy_to_host(), as in Halide, so that a
    // pipeline run again and again pays for no copies.
    Realization realize(std::vector<int32_t> sizes = {}, const Target& target = Target());
    void realize(Realization outputs, const Target& target = Target());
    template <typename T, int Dims>
    void realize(Buffer<T, Dims> output, const Target& target = Target()) {
        realize(Realization(std::vector<Buffer<>>{Buffer<>(output)}), target);
    }
    void compile_jit(const Target& target = Target());

    std::string loop_nest() const;
    void print_loop_nest() const;
    void compile_to_lowered_stmt(const std::string& filename, const std::vector<Argument>& args,
                                 StmtOutputFormat format = StmtOutputFormat::Text,
                                 const Target& target = Target());
    // Ahead-of-time compilation. The C function fn_name (default: the first output's name) takes
    // args, the pipeline's inputs (ImageParams and Params) in the caller's order, then one buffer
    // per output Func and Tuple element:
    //     int fn_name(tessera_buffer_t* input, float alpha, ..., tessera_buffer_t* output);
    // It returns 0, or a nonzero tessera_error_code_t after reporting a message (see runtime.h).
    // Input Buffers the pipeline reads that are not in args are compiled in as constants. Every
    // ImageParam and Param the pipeline uses must be in args.
    //
    // compile_to writes every file named in output_files. compile_to_static_library writes
    // prefix.a (the code and the runtime it needs, unless the target has no_runtime) and prefix.h;
    // compile_to_file writes prefix.o and prefix.h; the others write one file.
    void compile_to(const std::map<OutputFileType, std::string>& output_files,
                    const std::vector<Argument>& args, const std::string& fn_name,
                    const Target& target = get_target_from_environment());
    void compile_to_static_library(const std::string& filename_prefix, const std::vector<Argument>& args,
                                   const std::string& fn_name = "",
                                   const Target& target = get_target_from_environment());
    // One library with code for each target, all of one architecture and OS, most capable first:
    // the function (named after the file) runs the first whose features the CPU has, the last
    // without asking.
    void compile_to_multitarget_static_library(const std::string& filename_prefix,
                                               const std::vector<Argument>& args,
                                               const std::vector<Target>& targets);
    void compile_to_object(const std::string& filename, const std::vector<Argument>& args,
                           const std::string& fn_name = "",
                           const Target& target = get_target_from_environment());
    void compile_to_header(const std::string& filename, const std::vector<Argument>& args,
                           const std::string& fn_name = "",
                           const Target& target = get_target_from_environment());
    void compile_to_assembly(const std::string& filename, const std::vector<Argument>& args,
                             const std::string& fn_name = "",
                             const Target& target = get_target_from_environment());
    void compile_to_llvm_assembly(const std::string& filename, const std::vector<Argument>& args,
                                  const std::string& fn_name = "",
                                  const Target& target = get_target_from_environment());
    void compile_to_bitcode(const std::string& filename, const std::vector<Argument>& args,
                            const std::string& fn_name = "",
                            const Target& target = get_target_from_environment());
    void compile_to_file(const std::string& filename_prefix, const std::vector<Argument>& args,
                         const std::string& fn_name = "",
                         const Target& target = get_target_from_environment());

    // Milliseconds the last compilation of this pipeline took (lowering and LLVM).
    double last_compile_time_ms() const;

private:
    std::shared_ptr<lang::PipelineContents> contents_;
};

template <typename T, int Dims>
void Func::realize(Buffer<T, Dims> output, const Target& target) {
    realize(Realization(std::vector<Buffer<>>{Buffer<>(output)}), target);
}

}  // namespace tessera
