#pragma once
// Param<T>: a scalar argument of a pipeline, set before each run. ImageParam: a buffer argument.

#include <memory>
#include <string>
#include <vector>

#include "tessera/buffer.h"
#include "tessera/expr.h"
#include "tessera/rdom.h"
#include "tessera/type.h"

namespace tessera {

class Func;

namespace lang {
struct ParameterContents;
std::shared_ptr<ParameterContents> make_scalar_parameter(Type t, const std::string& name);
std::shared_ptr<ParameterContents> make_buffer_parameter(Type t, int dimensions, const std::string& name);
const std::string& parameter_name(const ParameterContents& p);
void set_scalar_bits(ParameterContents& p, const void* value, int bytes);
void get_scalar_bits(const ParameterContents& p, void* value, int bytes);
void set_scalar_range(ParameterContents& p, const Expr& min, const Expr& max);
Expr scalar_min(const ParameterContents& p);
Expr scalar_max(const ParameterContents& p);
Expr parameter_expr(const std::shared_ptr<ParameterContents>& p);
void bind_buffer(ParameterContents& p, const std::shared_ptr<BufferContents>& b, Type type);
std::shared_ptr<BufferContents> bound_buffer(const ParameterContents& p);
Expr image_param_access(const std::shared_ptr<ParameterContents>& p, std::vector<Expr> args);
enum class BufferField { Min, Extent, Stride };
void set_scalar_estimate(ParameterContents& p, const Expr& value);
void set_buffer_estimate(ParameterContents& p, int dim, const Expr& min, const Expr& extent);
void set_buffer_estimates(ParameterContents& p, const std::vector<Range>& region);
void set_buffer_constraint(ParameterContents& p, int dim, BufferField field, const Expr& value);
Expr image_param_field(const std::shared_ptr<ParameterContents>& p, const char* field, int dim);
}  // namespace lang

template <typename T>
class Param {
public:
    Param() : Param(std::string()) {}
    explicit Param(const std::string& name) : contents_(lang::make_scalar_parameter(type_of<T>(), name)) {}
    explicit Param(const char* name) : Param(std::string(name)) {}
    Param(const std::string& name, T value) : Param(name) { set(value); }
    explicit Param(T value) : Param(std::string()) { set(value); }
    Param(T value, const Expr& min, const Expr& max) : Param(value) { set_range(min, max); }
    Param(const std::string& name, T value, const Expr& min, const Expr& max) : Param(name, value) {
        set_range(min, max);
    }

    const std::string& name() const { return lang::parameter_name(*contents_); }
    Type type() const { return type_of<T>(); }
    void set(T value) { lang::set_scalar_bits(*contents_, &value, sizeof(T)); }
    T get() const {
        T value;
        lang::get_scalar_bits(*contents_, &value, sizeof(T));
        return value;
    }
    // The range the value is promised to lie in (undefined: unbounded).
    void set_range(const Expr& min, const Expr& max) { lang::set_scalar_range(*contents_, min, max); }
    void set_min_value(const Expr& min) { set_range(min, max_value()); }
    void set_max_value(const Expr& max) { set_range(min_value(), max); }
    Expr min_value() const { return lang::scalar_min(*contents_); }
    Expr max_value() const { return lang::scalar_max(*contents_); }
    // The value automatic schedulers assume (Pipeline::auto_schedule); it changes no code.
    void set_estimate(T value) { lang::set_scalar_estimate(*contents_, Expr(value)); }
    operator Expr() const { return lang::parameter_expr(contents_); }
    const std::shared_ptr<lang::ParameterContents>& contents() const { return contents_; }

private:
    std::shared_ptr<lang::ParameterContents> contents_;
};

// The shape of one dimension of an ImageParam (or of a Func's output buffer), as Exprs read from
// the buffer at run time, and what the pipeline requires of it. A requirement is checked each time
// the pipeline runs (a buffer that does not meet it is an error that names it), and the compiled
// code relies on it: set_min(0) lets it drop the min from every index, set_extent(16) makes loops
// over the buffer constant. Dimension 0 has stride 1 unless set_stride says otherwise;
// set_stride(Expr()) accepts any stride there. An undefined Expr removes a requirement.
class ParamDimension {
public:
    ParamDimension(std::shared_ptr<lang::ParameterContents> p, int d) : param_(std::move(p)), dim_(d) {}
    Expr min() const { return lang::image_param_field(param_, "min", dim_); }
    Expr extent() const { return lang::image_param_field(param_, "extent", dim_); }
    Expr stride() const { return lang::image_param_field(param_, "stride", dim_); }
    Expr max() const;
    ParamDimension set_min(const Expr& min);
    ParamDimension set_extent(const Expr& extent);
    ParamDimension set_stride(const Expr& stride);
    ParamDimension set_bounds(const Expr& min, const Expr& extent);
    // Another dimension of the same buffer, to chain requirements: dim(0).set_min(0).dim(1)...
    ParamDimension dim(int i) const { return ParamDimension(param_, i); }
    // The min and extent automatic schedulers assume (Pipeline::auto_schedule); it changes no code.
    ParamDimension set_estimate(const Expr& min, const Expr& extent) {
        lang::set_buffer_estimate(*param_, dim_, min, extent);
        return *this;
    }

private:
    std::shared_ptr<lang::ParameterContents> param_;
    int dim_;
};

// A buffer argument's shape, to read and to constrain: the buffer a Func writes when it is the
// output of a pipeline (Func::output_buffer()), and, as the base of ImageParam, an input's.
class OutputImageParam {
public:
    OutputImageParam() = default;
    explicit OutputImageParam(std::shared_ptr<lang::ParameterContents> p) : contents_(std::move(p)) {}
    const std::string& name() const { return lang::parameter_name(*contents_); }
    Type type() const;
    int dimensions() const;
    bool defined() const { return contents_ != nullptr; }
    ParamDimension dim(int i) const { return ParamDimension(contents_, i); }
    Expr width() const { return dim(0).extent(); }
    Expr height() const { return dim(1).extent(); }
    Expr channels() const { return dim(2).extent(); }
    Expr left() const { return dim(0).min(); }
    Expr right() const { return dim(0).max(); }
    Expr top() const { return dim(1).min(); }
    Expr bottom() const { return dim(1).max(); }
    // The shape automatic schedulers assume, one Range per dimension (see ParamDimension).
    OutputImageParam& set_estimates(const std::vector<Range>& region) {
        lang::set_buffer_estimates(*contents_, region);
        return *this;
    }
    const std::shared_ptr<lang::ParameterContents>& contents() const { return contents_; }

protected:
    std::shared_ptr<lang::ParameterContents> contents_;
};

class ImageParam : public OutputImageParam {
public:
    ImageParam() = default;
    ImageParam(Type t, int dimensions, const std::string& name = "")
        : OutputImageParam(lang::make_buffer_parameter(t, dimensions, name)) {}
    // Another handle on the same input (as Pipeline::get_image_param gives).
    explicit ImageParam(std::shared_ptr<lang::ParameterContents> p) : OutputImageParam(std::move(p)) {}

    template <typename T, int Dims>
    void set(const Buffer<T, Dims>& b) {
        lang::bind_buffer(*contents_, b.contents(), b.type());
    }
    Buffer<> get() const;
    void reset() { lang::bind_buffer(*contents_, nullptr, type()); }

    template <typename... Args>
    Expr operator()(Args&&... args) const {
        return lang::image_param_access(contents_, std::vector<Expr>{Expr(std::forward<Args>(args))...});
    }
    Expr operator()(const std::vector<Expr>& args) const { return lang::image_param_access(contents_, args); }

    // The shape automatic schedulers assume, one Range per dimension (see ParamDimension).
    ImageParam& set_estimates(const std::vector<Range>& region) {
        OutputImageParam::set_estimates(region);
        return *this;
    }

    // The image as a Func: f(x, y, ...) = image(x, y, ...).
    operator Func() const;

    // A wrapper, as Func::in(): a Func that reads the image and that the given consumer (or
    // consumers, or, without arguments, every consumer) reads instead, to be scheduled on its own:
    // a copy computed per tile, vectorized, or stored in another memory type. Its pure Vars are
    // _0, _1, ... Asking again for the same consumers returns the same wrapper.
    Func in(const Func& consumer);
    Func in(const std::vector<Func>& consumers);
    Func in();
};

}  // namespace tessera
