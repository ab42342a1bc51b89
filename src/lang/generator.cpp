// GeneratorBase: the members a generator declares, its parameters set by name, and its build.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/generator.h"
#include "util/c_identifier.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

// The generator whose members are being constructed on this thread: set by GeneratorBase's first
// member, before any member of the class derived from it, and restored once the object is whole.
thread_local GeneratorBase* generator_under_construction = nullptr;

std::string joined(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

std::string types_text(const std::vector<Type>& types) {
    if (types.size() == 1) return type_name(types[0]);
    std::string s = "(";
    for (size_t i = 0; i < types.size(); i++) s += (i ? ", " : "") + type_name(types[i]);
    return s + ")";
}

std::string of_generator(const std::string& generator_name) {
    return generator_name.empty() ? "" : " of generator '" + generator_name + "'";
}

// GeneratorBase's own members target, auto_schedule, machine_params and autoscheduler, constructed
// first.
constexpr size_t builtin_params = 4;

std::string generator_label(const std::string& generator_name) {
    return generator_name.empty() ? "The generator" : "Generator '" + generator_name + "'";
}

std::string without_prefix(const std::string& message) {
    const std::string prefix = "Error: ";
    return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
}

}  // namespace

GeneratorBase::ConstructionScope::ConstructionScope(GeneratorBase* generator, size_t size) {
    generator->previous_under_construction_ = generator_under_construction;
    generator->end_of_generator_ = reinterpret_cast<const char*>(generator) + size;
    generator_under_construction = generator;
}

GeneratorBase::GeneratorBase(size_t size_of_generator) : construction_scope_(this, size_of_generator) {}

GeneratorBase::~GeneratorBase() {
    if (generator_under_construction == this) generator_under_construction = previous_under_construction_;
}

void GeneratorBase::finish_construction(const GeneratorContext& context) {
    if (generator_under_construction == this) generator_under_construction = previous_under_construction_;
    if (context.auto_schedule()) {
        auto_schedule.set(true);
        machine_params.set(context.machine_params().to_string());
    }
    if (context.target().defined()) target.set(context.target());
}

GeneratorBase& GeneratorBase::owner_of_member(const void* member, const char* kind, const std::string& name) {
    GeneratorBase* g = generator_under_construction;
    // Compared as integers: the member may belong to another object altogether.
    const auto address = reinterpret_cast<uintptr_t>(member);
    TESSERA_USER_CHECK(g && address >= reinterpret_cast<uintptr_t>(g) &&
                       address < reinterpret_cast<uintptr_t>(g->end_of_generator_))
        << kind << " '" << name
        << "' is not a member of a Generator. Declare GeneratorParams, Inputs and Outputs as members of a "
           "class derived from tessera::Generator<T>, and make it with T::create(context).";
    return *g;
}

void GeneratorBase::add_member_name(const std::string& name, const char* kind) {
    TESSERA_USER_CHECK(util::is_c_identifier(name))
        << kind << " '" << name << "': the name of a GeneratorParam, Input or Output must be a C identifier.";
    for (size_t i = 0; i < member_names_.size(); i++)
        TESSERA_USER_CHECK(member_names_[i] != name) << kind << " '" << name
                                                     << "' has the name of another member of its generator; "
                                                        "the GeneratorParams, Inputs and Outputs of "
                                                        "a generator need distinct names.";
    member_names_.push_back(name);
}

lang::GeneratorParamBase* GeneratorBase::find_param(const std::string& name) const {
    for (lang::GeneratorParamBase* p : params_)
        if (p->name() == name) return p;
    return nullptr;
}

void GeneratorBase::set_generator_param(const std::string& name, const std::string& value) {
    lang::GeneratorParamBase* p = find_param(name);
    if (!p) {
        // The generator's own parameters first, then the built-ins every generator has.
        std::vector<std::string> known;
        for (size_t i = builtin_params; i < params_.size(); i++) known.push_back(params_[i]->name());
        for (size_t i = 0; i < builtin_params; i++) known.push_back(params_[i]->name());
        TESSERA_USER_ERROR << generator_label(generator_name_) << " has no GeneratorParam '" << name
                           << "'. Its GeneratorParams: " << joined(known) << ".";
    }
    p->set_from_string(value);
    if (p == &machine_params && !machine_params.value().empty()) machine_params_value();  // checks the text
}

MachineParams GeneratorBase::machine_params_value() const {
    return machine_params.value().empty() ? MachineParams::generic() : MachineParams(machine_params.value());
}

void GeneratorBase::set_generator_param_values(const std::map<std::string, std::string>& values) {
    for (const auto& [name, value] : values) set_generator_param(name, value);
}

void GeneratorBase::build() {
    if (built_) {
        TESSERA_USER_CHECK(build_error_.empty())
            << generator_label(generator_name_)
            << " failed to build earlier: " << without_prefix(build_error_);
        return;
    }
    built_ = true;
    try {
        TESSERA_USER_CHECK(!outputs_.empty())
            << generator_label(generator_name_) << " has no Output; declare at least one Output<...> member.";
        call_generate();
        call_schedule();
        for (const lang::GeneratorOutputBase* out : outputs_) out->check_defined(generator_name_);
    } catch (const std::exception& e) {
        build_error_ = e.what();
        throw;
    }
}

Pipeline GeneratorBase::build_pipeline() {
    build();
    if (!pipeline_.defined()) {
        pipeline_ = Pipeline(output_funcs());
        if (using_autoscheduler()) {
            const std::string name = autoscheduler.value().empty()
                                         ? Pipeline::get_default_autoscheduler_name()
                                         : autoscheduler.value();
            auto_schedule_results_ = pipeline_.auto_schedule(name, get_target(), machine_params_value());
        }
    }
    return pipeline_;
}

std::vector<std::pair<std::string, std::string>> GeneratorBase::generator_param_values() const {
    std::vector<std::pair<std::string, std::string>> values;
    for (size_t i = builtin_params; i < params_.size(); i++)
        values.emplace_back(params_[i]->name(), params_[i]->to_string());
    for (size_t i = 0; i < builtin_params; i++)
        values.emplace_back(params_[i]->name(), params_[i]->to_string());
    return values;
}

std::vector<Argument> GeneratorBase::input_arguments() const {
    std::vector<Argument> args;
    for (const lang::GeneratorInputBase* in : inputs_) args.push_back(in->argument());
    return args;
}

std::vector<std::string> GeneratorBase::output_argument_names() const {
    std::vector<std::string> names;
    for (const lang::GeneratorOutputBase* out : outputs_)
        for (const std::string& n : out->argument_names()) names.push_back(n);
    return names;
}

std::vector<Func> GeneratorBase::output_funcs() const {
    TESSERA_USER_CHECK(built_ && build_error_.empty())
        << "the Outputs of a generator have Funcs only once it is built: call build() or build_pipeline() "
           "first.";
    std::vector<Func> funcs;
    for (const lang::GeneratorOutputBase* out : outputs_) funcs.push_back(out->output_func());
    return funcs;
}

namespace lang {

GeneratorParamBase::GeneratorParamBase(const std::string& name) : name_(name) {
    GeneratorBase& g = GeneratorBase::owner_of_member(this, "GeneratorParam", name);
    g.add_member_name(name, "GeneratorParam");
    g.params_.push_back(this);
    generator_ = &g;
}

std::string param_label(const std::string& name, const GeneratorBase* g) {
    return "GeneratorParam '" + name + "'" + of_generator(g ? g->generator_name() : "");
}

void GeneratorParamBase::fail_parse(const std::string& text) const {
    throw CompileError("Error: " + param_label(name_, generator_) + ": cannot parse \"" + text + "\" as " +
                       type_description() + ".");
}

void GeneratorParamBase::fail_range(const std::string& value, const std::string& range) const {
    throw CompileError("Error: " + param_label(name_, generator_) + ": " + value +
                       " is out of range: it must be in " + range + ".");
}

void GeneratorParamBase::check_settable() const {
    TESSERA_USER_CHECK(!generator_->built()) << param_label(name_, generator_)
                                             << " cannot change once the generator is built; set "
                                                "GeneratorParams before build() or build_pipeline().";
}

GeneratorInputBase::GeneratorInputBase(const std::string& name) : name_(name) {
    GeneratorBase& g = GeneratorBase::owner_of_member(this, "Input", name);
    g.add_member_name(name, "Input");
    g.inputs_.push_back(this);
}

GeneratorOutputBase::GeneratorOutputBase(const std::string& name, std::vector<Type> types, int dimensions)
    : name_(name), types_(std::move(types)), dimensions_(dimensions) {
    GeneratorBase& g = GeneratorBase::owner_of_member(this, "Output", name);
    g.add_member_name(name, "Output");
    TESSERA_USER_CHECK(dimensions_ >= -1)
        << "Output '" << name << "' is declared with " << dimensions << " dimensions.";
    g.outputs_.push_back(this);
}

std::vector<std::string> GeneratorOutputBase::argument_names() const {
    size_t values = types_.size();
    if (values == 0) {
        Func f = output_func();
        values = f.defined() ? size_t(f.outputs()) : 1;
    }
    if (values == 1) return {name_};
    std::vector<std::string> names;
    for (size_t i = 0; i < values; i++) names.push_back(name_ + "_" + std::to_string(i));
    return names;
}

void GeneratorOutputBase::check_defined(const std::string& generator_name) const {
    Func f = output_func();
    TESSERA_USER_CHECK(f.defined()) << "Output '" << name_ << "'" << of_generator(generator_name)
                                    << " is not defined: generate() must define it (" << name_
                                    << "(x, y) = ...) or assign a Func to it (" << name_ << " = f).";
    const std::string what = f.name() == name_ ? "it" : "the Func assigned to it, " + f.name() + ",";
    TESSERA_USER_CHECK(types_.empty() || f.output_types() == types_)
        << "Output '" << name_ << "'" << of_generator(generator_name) << " is declared as "
        << types_text(types_) << ", but " << what << " computes " << types_text(f.output_types()) << ".";
    TESSERA_USER_CHECK(dimensions_ < 0 || f.dimensions() == dimensions_)
        << "Output '" << name_ << "'" << of_generator(generator_name) << " is declared with " << dimensions_
        << " dimensions, but " << what << " has " << f.dimensions() << ".";
}

void throw_mismatched_dims(const char* kind, const std::string& name, int given, int declared) {
    throw CompileError("Error: " + std::string(kind) + " '" + name + "' is declared with " +
                       std::to_string(given) + " dimensions, but its Buffer type has " +
                       std::to_string(declared) + ".");
}

GeneratorBufferInput::GeneratorBufferInput(const std::string& name, Type type, int dimensions)
    : GeneratorInputBase(name), ImageParam(type, dimensions, name) {
    TESSERA_USER_CHECK(dimensions >= 0)
        << "Input '" << name << "' is declared with " << dimensions << " dimensions.";
    func_ = ImageParam::operator Func();
}

GeneratorFuncOutput::GeneratorFuncOutput(const std::string& name, std::vector<Type> types, int dimensions)
    : GeneratorOutputBase(name, std::move(types), dimensions), Func(name) {}

Type GeneratorFuncOutput::type() const {
    return declared_types().empty() ? Func::type() : declared_types()[0];
}

const std::vector<Type>& GeneratorFuncOutput::types() const {
    return declared_types().empty() ? Func::output_types() : declared_types();
}

int GeneratorFuncOutput::dimensions() const {
    return declared_dimensions() >= 0 ? declared_dimensions() : Func::dimensions();
}

}  // namespace lang
}  // namespace tessera
