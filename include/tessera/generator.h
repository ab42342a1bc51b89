#pragma once
// Generators: a pipeline packaged with its build-time parameters, its inputs and its outputs,
// spelled as Halide 14 spells them, so that the generator driver (tessera::generator_main, run at
// build time by add_tessera_library() in CMake) compiles it ahead of time, and a JIT program runs
// the same code.
//
//     class Blur : public tessera::Generator<Blur> {
//     public:
//         GeneratorParam<int> radius{"radius", 1, 1, 8};      // default, min, max
//         Input<Buffer<uint16_t>> input{"input", 2};
//         Input<float> gain{"gain", 1.0f, 0.0f, 4.0f};        // default, min, max
//         Output<Buffer<uint16_t>> output{"output", 2};
//         void generate() { output(x, y) = ...; }              // the algorithm
//         void schedule() { output.vectorize(x, 8); }          // optional
//     };
//     TESSERA_REGISTER_GENERATOR(Blur, blur)
//
// The C function compiled from a generator takes its Inputs in declaration order, then one buffer
// per Output (per Tuple element of a Tuple-valued Output), each named as the Input or Output is.
// Members must be declared in a class derived from Generator<T> (they register with the generator
// being constructed); generate() and schedule() must be public.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/boundary_conditions.h"
#include "tessera/buffer.h"
#include "tessera/error.h"
#include "tessera/expr.h"
#include "tessera/func.h"
#include "tessera/generator_param.h"
#include "tessera/operators.h"
#include "tessera/param.h"
#include "tessera/pipeline.h"
#include "tessera/rdom.h"
#include "tessera/schedule.h"
#include "tessera/target.h"
#include "tessera/tuple.h"
#include "tessera/type.h"
#include "tessera/var.h"

namespace tessera {

class GeneratorBase;

// What a generator is created for: the target it compiles to, and whether the default automatic
// scheduler schedules it (for the machine params given), as Halide 14's auto_schedule=true.
class GeneratorContext {
public:
    explicit GeneratorContext(const Target& target, bool auto_schedule = false,
                              const MachineParams& machine_params = MachineParams::generic())
        : target_(target), auto_schedule_(auto_schedule), machine_params_(machine_params) {}
    const Target& target() const { return target_; }
    const Target& get_target() const { return target_; }
    bool auto_schedule() const { return auto_schedule_; }
    bool get_auto_schedule() const { return auto_schedule_; }
    const MachineParams& machine_params() const { return machine_params_; }
    const MachineParams& get_machine_params() const { return machine_params_; }
    // T::create(*this).
    template <typename T>
    std::unique_ptr<T> create() const {
        return T::create(*this);
    }

private:
    Target target_;
    bool auto_schedule_;
    MachineParams machine_params_;
};

namespace lang {

// The non-template halves of Input and Output. Each registers with the generator under
// construction (and throws CompileError when there is none, or when its name is not a C
// identifier or is taken), so that declaration order is known.
class GeneratorInputBase {
public:
    explicit GeneratorInputBase(const std::string& name);
    GeneratorInputBase(const GeneratorInputBase&) = delete;
    GeneratorInputBase& operator=(const GeneratorInputBase&) = delete;
    virtual ~GeneratorInputBase() = default;
    const std::string& input_name() const { return name_; }
    // The argument of the C function this Input becomes.
    virtual Argument argument() const = 0;

private:
    std::string name_;
};

class GeneratorOutputBase {
public:
    // dimensions -1 and no types: whatever the Func defined for it has.
    GeneratorOutputBase(const std::string& name, std::vector<Type> types, int dimensions);
    GeneratorOutputBase(const GeneratorOutputBase&) = delete;
    GeneratorOutputBase& operator=(const GeneratorOutputBase&) = delete;
    virtual ~GeneratorOutputBase() = default;
    const std::string& output_name() const { return name_; }
    const std::vector<Type>& declared_types() const { return types_; }
    int declared_dimensions() const { return dimensions_; }
    // The Func the pipeline computes for this Output.
    virtual Func output_func() const = 0;
    // The names of the C function's buffers for this Output: its name, or name_0, name_1, ... for
    // a Tuple.
    std::vector<std::string> argument_names() const;
    // Throws CompileError unless the Func is defined with the declared types and dimensions.
    void check_defined(const std::string& generator_name) const;

private:
    std::string name_;
    std::vector<Type> types_;
    int dimensions_;
};

// Throws CompileError: an Input or Output declared with a dimensionality other than its type's.
[[noreturn]] void throw_mismatched_dims(const char* kind, const std::string& name, int given, int declared);

}  // namespace lang

template <typename T>
class GeneratorInput;
template <typename T>
class GeneratorOutput;

namespace lang {

// An Input that is a buffer: an ImageParam, and a Func that reads it, so that input(x, y) is a call
// of that Func (and input.in() wraps every use).
class GeneratorBufferInput : public GeneratorInputBase, public ImageParam {
public:
    GeneratorBufferInput(const std::string& name, Type type, int dimensions);

    using ImageParam::name;
    template <typename... Args>
    FuncRef operator()(Args&&... args) const {
        return func_(std::forward<Args>(args)...);
    }
    FuncRef operator()(const std::vector<Expr>& args) const { return func_(args); }
    operator Func() const { return func_; }
    Func in() { return func_.in(); }
    Func in(const Func& consumer) { return func_.in(consumer); }
    Func in(const std::vector<Func>& consumers) { return func_.in(consumers); }
    // The shape automatic schedulers assume (see ImageParam::set_estimates).
    GeneratorBufferInput& set_estimates(const std::vector<Range>& region) {
        ImageParam::set_estimates(region);
        return *this;
    }

    Argument argument() const override { return Argument(static_cast<const ImageParam&>(*this)); }

private:
    Func func_;
};

// An Output: a Func (defined or scheduled through the Output, or assigned to it), with the name,
// element types and dimensionality the C function's buffer has.
class GeneratorFuncOutput : public GeneratorOutputBase, public Func {
public:
    GeneratorFuncOutput(const std::string& name, std::vector<Type> types, int dimensions);

    const std::string& name() const { return output_name(); }
    // The declared type, or the defined Func's when none was declared.
    Type type() const;
    const std::vector<Type>& types() const;
    int dimensions() const;
    // The pipeline computes f for this Output; the C argument keeps the Output's name.
    GeneratorFuncOutput& operator=(const Func& f) {
        Func::operator=(f);
        return *this;
    }
    Func output_func() const override { return *this; }

    // A dimension of the output's buffer (of every value's, for a Tuple): requirements, as
    // Func::output_buffer().dim(d) takes them, once the Output is defined; and the estimates
    // automatic schedulers assume.
    class Dimension {
    public:
        Dimension(const GeneratorFuncOutput& output, int d) : output_(output), dim_(d) {}
        Dimension& set_estimate(const Expr& min, const Expr& extent) {
            return each([&](ParamDimension d) { d.set_estimate(min, extent); });
        }
        Dimension& set_bounds_estimate(const Expr& min, const Expr& extent) {
            return set_estimate(min, extent);
        }
        Dimension& set_min(const Expr& min) {
            return each([&](ParamDimension d) { d.set_min(min); });
        }
        Dimension& set_extent(const Expr& e) {
            return each([&](ParamDimension d) { d.set_extent(e); });
        }
        Dimension& set_stride(const Expr& s) {
            return each([&](ParamDimension d) { d.set_stride(s); });
        }
        Dimension& set_bounds(const Expr& min, const Expr& extent) { return set_min(min).set_extent(extent); }
        Expr min() const { return output_.output_buffers().front().dim(dim_).min(); }
        Expr extent() const { return output_.output_buffers().front().dim(dim_).extent(); }
        Expr stride() const { return output_.output_buffers().front().dim(dim_).stride(); }
        Expr max() const { return min() + extent() - 1; }
        Dimension dim(int d) const { return Dimension(output_, d); }

    private:
        template <typename F>
        Dimension& each(F f) {
            for (const OutputImageParam& b : output_.output_buffers()) f(b.dim(dim_));
            return *this;
        }
        const GeneratorFuncOutput& output_;
        int dim_;
    };
    Dimension dim(int d) const { return Dimension(*this, d); }
    // The region automatic schedulers assume is computed (see Func::set_estimates), once defined.
    GeneratorFuncOutput& set_estimates(const std::vector<Range>& region) {
        Func::set_estimates(region);
        return *this;
    }
    GeneratorFuncOutput& set_estimate(const Var& var, const Expr& min, const Expr& extent) {
        Func::set_estimate(var, min, extent);
        return *this;
    }
};

template <typename T>
constexpr bool is_generator_scalar = std::is_arithmetic_v<T>;

}  // namespace lang

// Input<Buffer<T>>{"name", dims}, Input<Buffer<T, D>>{"name"}, Input<Buffer<>>{"name", type, dims}:
// a buffer argument (an ImageParam), read as a Func: input(x, y), input.width(), input.dim(1).
template <typename T, int D>
class GeneratorInput<Buffer<T, D>> : public lang::GeneratorBufferInput {
    static constexpr bool typed = !std::is_void_v<T>;
    static constexpr bool typed_with_dims = typed && D != AnyDims;

public:
    explicit GeneratorInput(const std::string& name) requires(typed_with_dims)
        : GeneratorBufferInput(name, type_of<T>(), D) {}
    GeneratorInput(const std::string& name, int dimensions) requires(typed)
        : GeneratorBufferInput(name, type_of<T>(), checked_dims(name, dimensions)) {}
    GeneratorInput(const std::string& name, Type type) requires(!typed && D != AnyDims)
        : GeneratorBufferInput(name, type, D) {}
    GeneratorInput(const std::string& name, Type type, int dimensions) requires(!typed)
        : GeneratorBufferInput(name, type, checked_dims(name, dimensions)) {}

private:
    static int checked_dims(const std::string& name, int dimensions) {
        if (D != AnyDims && dimensions != D) lang::throw_mismatched_dims("Input", name, dimensions, D);
        return dimensions;
    }
};

// Input<Func>{"name", type, dims}: a buffer argument, as Input<Buffer<>>.
template <>
class GeneratorInput<Func> : public lang::GeneratorBufferInput {
public:
    GeneratorInput(const std::string& name, Type type, int dimensions)
        : GeneratorBufferInput(name, type, dimensions) {}
};

// Input<T> for a scalar T (bool, an integer or floating-point type): a Param<T>, read as an Expr,
// with an optional default value and range.
template <typename T>
class GeneratorInput : public lang::GeneratorInputBase, public Param<T> {
    static_assert(lang::is_generator_scalar<T>,
                  "Input<T>: T must be a scalar type (bool, an integer or a float), Buffer<...> or Func");

public:
    explicit GeneratorInput(const std::string& name) : GeneratorInputBase(name), Param<T>(name) {}
    GeneratorInput(const std::string& name, const T& value)
        : GeneratorInputBase(name), Param<T>(name, value) {}
    GeneratorInput(const std::string& name, const T& value, const T& min,
                   const T& max) requires(lang::is_generator_number<T>)
        : GeneratorInputBase(name), Param<T>(name, value, Expr(min), Expr(max)) {}

    using Param<T>::name;
    Argument argument() const override { return Argument(static_cast<const Param<T>&>(*this)); }
};

// Output<Buffer<T>>{"name", dims}, Output<Buffer<T, D>>{"name"}, Output<Buffer<>>{"name", type,
// dims} (or types, for a Tuple): a Func to define and schedule, or to assign: output = f;.
template <typename T, int D>
class GeneratorOutput<Buffer<T, D>> : public lang::GeneratorFuncOutput {
    static constexpr bool typed = !std::is_void_v<T>;
    static constexpr bool typed_with_dims = typed && D != AnyDims;

public:
    explicit GeneratorOutput(const std::string& name) requires(typed_with_dims)
        : GeneratorFuncOutput(name, {type_of<T>()}, D) {}
    GeneratorOutput(const std::string& name, int dimensions) requires(typed)
        : GeneratorFuncOutput(name, {type_of<T>()}, checked_dims(name, dimensions)) {}
    GeneratorOutput(const std::string& name, Type type, int dimensions) requires(!typed)
        : GeneratorFuncOutput(name, {type}, checked_dims(name, dimensions)) {}
    GeneratorOutput(const std::string& name, const std::vector<Type>& types, int dimensions) requires(!typed)
        : GeneratorFuncOutput(name, types, checked_dims(name, dimensions)) {}
    using GeneratorFuncOutput::operator=;

private:
    static int checked_dims(const std::string& name, int dimensions) {
        if (D != AnyDims && dimensions != D) lang::throw_mismatched_dims("Output", name, dimensions, D);
        return dimensions;
    }
};

// Output<Func>{"name", type, dims} (or types, for a Tuple; or neither: whatever is defined).
template <>
class GeneratorOutput<Func> : public lang::GeneratorFuncOutput {
public:
    explicit GeneratorOutput(const std::string& name) : GeneratorFuncOutput(name, {}, -1) {}
    GeneratorOutput(const std::string& name, Type type, int dimensions)
        : GeneratorFuncOutput(name, {type}, dimensions) {}
    GeneratorOutput(const std::string& name, const std::vector<Type>& types, int dimensions)
        : GeneratorFuncOutput(name, types, dimensions) {}
    using GeneratorFuncOutput::operator=;
};

// Output<T> for a scalar T: a zero-dimensional buffer, defined as out() = value.
template <typename T>
class GeneratorOutput : public lang::GeneratorFuncOutput {
    static_assert(lang::is_generator_scalar<T>,
                  "Output<T>: T must be a scalar type (bool, an integer or a float), Buffer<...> or Func");

public:
    explicit GeneratorOutput(const std::string& name) : GeneratorFuncOutput(name, {type_of<T>()}, 0) {}
    using GeneratorFuncOutput::operator=;
};

// The base of every generator (Generator<T> below). Inside a generator class, Halide's names
// (Input, Output, GeneratorParam, Buffer, Func, Var, Expr, RDom, Type, UInt...) need no tessera::.
class GeneratorBase {
protected:
    template <typename T>
    using Input = GeneratorInput<T>;
    template <typename T>
    using Output = GeneratorOutput<T>;
    template <typename T>
    using GeneratorParam = tessera::GeneratorParam<T>;
    template <typename T = void, int Dims = AnyDims>
    using Buffer = tessera::Buffer<T, Dims>;
    template <typename T>
    using Param = tessera::Param<T>;
    using Expr = tessera::Expr;
    using Func = tessera::Func;
    using GeneratorContext = tessera::GeneratorContext;
    using ImageParam = tessera::ImageParam;
    using LoopLevel = tessera::LoopLevel;
    using Pipeline = tessera::Pipeline;
    using RDom = tessera::RDom;
    using RVar = tessera::RVar;
    using Range = tessera::Range;
    using Region = tessera::Region;
    using Stage = tessera::Stage;
    using TailStrategy = tessera::TailStrategy;
    using Target = tessera::Target;
    using Tuple = tessera::Tuple;
    using Type = tessera::Type;
    using Var = tessera::Var;
    using VarOrRVar = tessera::VarOrRVar;
    static constexpr Type Bool(int lanes = 1) { return tessera::Bool(lanes); }
    static constexpr Type Float(int bits, int lanes = 1) { return tessera::Float(bits, lanes); }
    static constexpr Type Int(int bits, int lanes = 1) { return tessera::Int(bits, lanes); }
    static constexpr Type UInt(int bits, int lanes = 1) { return tessera::UInt(bits, lanes); }
    template <typename T>
    static Expr cast(Expr e) {
        return tessera::cast<T>(std::move(e));
    }
    static Expr cast(Type t, Expr e) { return tessera::cast(t, std::move(e)); }
    // BoundaryConditions::repeat_edge(input) and the others, as in Halide.
    struct BoundaryConditions {
#define TESSERA_GENERATOR_BOUNDARY_CONDITION(name)                             \
    template <typename... Args>                                                \
    static Func name(Args&&... args) {                                         \
        return tessera::BoundaryConditions::name(std::forward<Args>(args)...); \
    }                                                                          \
    static Func name(const ImageParam& p, const Region& bounds) {              \
        return tessera::BoundaryConditions::name(p, bounds);                   \
    }                                                                          \
    static Func name(const Func& f, const Region& bounds) {                    \
        return tessera::BoundaryConditions::name(f, bounds);                   \
    }
        TESSERA_GENERATOR_BOUNDARY_CONDITION(repeat_edge)
        TESSERA_GENERATOR_BOUNDARY_CONDITION(repeat_image)
        TESSERA_GENERATOR_BOUNDARY_CONDITION(mirror_image)
        TESSERA_GENERATOR_BOUNDARY_CONDITION(mirror_interior)
#undef TESSERA_GENERATOR_BOUNDARY_CONDITION
        template <typename... Args>
        static Func constant_exterior(Args&&... args) {
            return tessera::BoundaryConditions::constant_exterior(std::forward<Args>(args)...);
        }
        static Func constant_exterior(const ImageParam& p, const Expr& value, const Region& bounds) {
            return tessera::BoundaryConditions::constant_exterior(p, value, bounds);
        }
        static Func constant_exterior(const Func& f, const Expr& value, const Region& bounds) {
            return tessera::BoundaryConditions::constant_exterior(f, value, bounds);
        }
    };

public:
    GeneratorBase(const GeneratorBase&) = delete;
    GeneratorBase& operator=(const GeneratorBase&) = delete;
    virtual ~GeneratorBase();

    // The value of the `target` GeneratorParam (the context's target).
    Target get_target() const { return target; }
    // Whether an automatic scheduler schedules the pipeline once generate() and schedule() have run:
    // autoscheduler=<name>, or auto_schedule=true for the default one ("Tessera"). schedule() may
    // then set estimates and schedule some Funcs itself; the automatic scheduler keeps those.
    bool using_autoscheduler() const { return auto_schedule || !autoscheduler.value().empty(); }
    // The automatic scheduler's results, once build_pipeline() has run it.
    const AutoSchedulerResults& auto_schedule_results() const { return auto_schedule_results_; }
    int natural_vector_size(Type t) const { return get_target().natural_vector_size(t); }
    template <typename T>
    int natural_vector_size() const {
        return natural_vector_size(type_of<T>());
    }
    GeneratorContext context() const {
        return GeneratorContext(get_target(), auto_schedule, machine_params_value());
    }

    // Sets GeneratorParams by name from text, before the generator is built. Throws CompileError for
    // an unknown name (listing the known ones), a value that does not parse, or one out of range.
    void set_generator_param_values(const std::map<std::string, std::string>& values);
    void set_generator_param(const std::string& name, const std::string& value);

    // Calls generate(), then schedule() when the generator has one, once; then checks that every
    // Output is defined with its declared type and dimensionality.
    void build();
    bool built() const { return built_; }
    // The Pipeline of the Outputs, in declaration order (building first if need be), scheduled by the
    // automatic scheduler when the generator uses one.
    Pipeline build_pipeline();
    // Builds, then runs the Pipeline of the Outputs through the JIT (set the Inputs first).
    Realization realize(std::vector<int32_t> sizes) { return build_pipeline().realize(std::move(sizes)); }
    void realize(Realization outputs) { build_pipeline().realize(std::move(outputs)); }

    // What the driver needs. The registered name ("" for a generator not made by the registry).
    const std::string& generator_name() const { return generator_name_; }
    // Every GeneratorParam and its current value as text: the generator's own in declaration
    // order, then the built-ins (target, auto_schedule, machine_params, autoscheduler).
    std::vector<std::pair<std::string, std::string>> generator_param_values() const;
    // The C function's inputs, in declaration order.
    std::vector<Argument> input_arguments() const;
    // The names of the C function's output buffers, in declaration order.
    std::vector<std::string> output_argument_names() const;
    // The Funcs of the Outputs, in declaration order (after build()).
    std::vector<Func> output_funcs() const;

protected:
    explicit GeneratorBase(size_t size_of_generator);
    // Called by Generator<T>::create once the generator is constructed.
    void finish_construction(const GeneratorContext& context);

private:
    friend class lang::GeneratorParamBase;
    friend class lang::GeneratorInputBase;
    friend class lang::GeneratorOutputBase;
    friend class GeneratorRegistry;
    virtual void call_generate() = 0;
    virtual void call_schedule() = 0;
    // The generator under construction whose object holds member; throws CompileError if none.
    static GeneratorBase& owner_of_member(const void* member, const char* kind, const std::string& name);
    void add_member_name(const std::string& name, const char* kind);
    lang::GeneratorParamBase* find_param(const std::string& name) const;

    // Declared before anything a member's construction touches; the built-in parameters follow.
    GeneratorBase* previous_under_construction_ = nullptr;
    const char* end_of_generator_ = nullptr;  // members lie in [this, end_of_generator_)
    std::vector<lang::GeneratorParamBase*> params_;
    std::vector<lang::GeneratorInputBase*> inputs_;
    std::vector<lang::GeneratorOutputBase*> outputs_;
    std::vector<std::string> member_names_;
    std::string generator_name_;
    bool built_ = false;
    std::string build_error_;  // why build() failed, if it did
    Pipeline pipeline_;        // made once, so that the JIT compiles it once
    AutoSchedulerResults auto_schedule_results_;
    MachineParams machine_params_value() const;
    // Marks this generator as the one whose members are being constructed, before any member is.
    struct ConstructionScope {
        ConstructionScope(GeneratorBase* generator, size_t size);
    };
    ConstructionScope construction_scope_;

protected:
    // The built-in GeneratorParams every generator has.
    GeneratorParam<Target> target{"target", get_host_target()};
    GeneratorParam<bool> auto_schedule{"auto_schedule", false};
    // "parallelism,last_level_cache_size,balance"; empty: MachineParams::generic().
    GeneratorParam<std::string> machine_params{"machine_params", ""};
    // The automatic scheduler's name ("Tessera"); empty: none, unless auto_schedule is true.
    GeneratorParam<std::string> autoscheduler{"autoscheduler", ""};
};

// The base of a generator class T (the curiously recurring template): class Blur : public
// tessera::Generator<Blur> { ... };. T must have a public default constructor and a public
// void generate(), and may have a public void schedule().
template <typename T>
class Generator : public GeneratorBase {
protected:
    Generator() : GeneratorBase(sizeof(T)) {}

public:
    // A new generator for the context's target. Throws CompileError when a member is wrongly
    // declared, or when the context asks for the auto-scheduler.
    static std::unique_ptr<T> create(const GeneratorContext& context) {
        std::unique_ptr<T> g(new T());
        g->finish_construction(context);
        return g;
    }

private:
    void call_generate() override {
        static_assert(
            requires(T & t) { t.generate(); },
            "A Generator must have a public void generate() defining its Outputs");
        static_cast<T*>(this)->generate();
    }
    void call_schedule() override {
        if constexpr (requires(T & t) { t.schedule(); }) static_cast<T*>(this)->schedule();
    }
};

// Makes a generator by its registered name.
using GeneratorFactory = std::function<std::unique_ptr<GeneratorBase>(const GeneratorContext&)>;

class GeneratorRegistry {
public:
    // Throws CompileError when the name is taken or is not a C identifier.
    static void register_factory(const std::string& name, GeneratorFactory factory);
    static void unregister_factory(const std::string& name);
    // The registered names, sorted.
    static std::vector<std::string> enumerate();
    // Throws CompileError naming the registered generators when name is not one of them, or
    // reporting a registration that failed (a name registered twice).
    static std::unique_ptr<GeneratorBase> create(const std::string& name, const GeneratorContext& context);
    // Registrations that failed during static initialization, where nothing can be thrown.
    static std::vector<std::string> registration_errors();
};

// A static object whose construction registers a generator (see TESSERA_REGISTER_GENERATOR).
class RegisterGenerator {
public:
    RegisterGenerator(const char* name, GeneratorFactory factory);
};

// The generator driver: `main` of every generator program (linked from Tessera::generator_main).
// Command line, as Halide's:
//   -g <name>      the generator (may be left out when the program has exactly one)
//   -o <dir>       where to write (required)
//   -f <function>  the C function's name (default: the generator's name)
//   -n <base>      the files' base name (default: the function's name)
//   -e <list>      what to write, comma-separated: static_library, h (c_header), o (object),
//                  assembly, llvm_assembly, bitcode, stmt, stmt_html (default static_library,h)
//   -l             list the registered generators;  -h  help
//   target=<target>[,<target>...] <param>=<value> ...
// Several targets (one kind of machine, most capable first) make one library that runs the first
// the CPU supports; the generator is built once, for the first.
// Returns 0, or 1 after printing one message to stderr.
int generator_main(int argc, char** argv);

}  // namespace tessera

// At namespace scope, after the class: TESSERA_REGISTER_GENERATOR(Blur, blur).
#define TESSERA_REGISTER_GENERATOR(GEN_CLASS_NAME, GEN_REGISTRY_NAME)                                     \
    namespace tessera_register_generator_##GEN_REGISTRY_NAME {                                            \
        static const ::tessera::RegisterGenerator registration(                                           \
            #GEN_REGISTRY_NAME,                                                                           \
            [](const ::tessera::GeneratorContext& context) -> std::unique_ptr<::tessera::GeneratorBase> { \
                return GEN_CLASS_NAME::create(context);                                                   \
            });                                                                                           \
    }
