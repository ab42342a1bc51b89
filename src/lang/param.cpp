#include "tessera/param.h"

#include <algorithm>
#include <cstring>

#include "ir/expr_nodes.h"
#include "ir/ir_util.h"
#include "lang/function.h"
#include "lang/implicit_vars.h"
#include "lang/parameter.h"
#include "lowering/names.h"
#include "tessera/func.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera {
namespace lang {

std::shared_ptr<ParameterContents> make_scalar_parameter(Type t, const std::string& name) {
    auto p = std::make_shared<ParameterContents>();
    p->name = name.empty() ? unique_name("p") : name;
    p->type = t;
    return p;
}

std::shared_ptr<ParameterContents> make_buffer_parameter(Type t, int dimensions, const std::string& name) {
    auto p = std::make_shared<ParameterContents>();
    p->name = name.empty() ? unique_name("input") : name;
    p->type = t;
    p->is_buffer = true;
    p->dimensions = dimensions;
    p->constraints.resize(size_t(std::max(dimensions, 0)));
    if (dimensions > 0) p->constraints[0].stride = Expr(1);
    return p;
}

const std::string& parameter_name(const ParameterContents& p) { return p.name; }

void set_scalar_bits(ParameterContents& p, const void* value, int bytes) {
    std::memset(p.scalar, 0, sizeof(p.scalar));
    std::memcpy(p.scalar, value, bytes);
}

void get_scalar_bits(const ParameterContents& p, void* value, int bytes) {
    std::memcpy(value, p.scalar, bytes);
}

void set_scalar_range(ParameterContents& p, const Expr& min, const Expr& max) {
    p.min_value = min;
    p.max_value = max;
}

Expr scalar_min(const ParameterContents& p) { return p.min_value; }
Expr scalar_max(const ParameterContents& p) { return p.max_value; }

Expr parameter_expr(const std::shared_ptr<ParameterContents>& p) {
    return ir::Variable::make_param(p->type, p->name, p);
}

void bind_buffer(ParameterContents& p, const std::shared_ptr<BufferContents>& b, Type type) {
    if (b) {
        if (type != p.type) {
            TESSERA_RUNTIME_ERROR << "ImageParam " << p.name << " has type " << type_name(p.type)
                                  << ", but was set to a buffer of " << type_name(type) << ". Pass a Buffer<"
                                  << type_name(p.type) << ">.";
        }
        if (b->raw.dimensions != p.dimensions) {
            TESSERA_RUNTIME_ERROR << "ImageParam " << p.name << " has " << p.dimensions
                                  << " dimensions, but was set to a buffer with " << b->raw.dimensions << ".";
        }
    }
    p.buffer = b;
}

std::shared_ptr<BufferContents> bound_buffer(const ParameterContents& p) { return p.buffer; }

Expr image_param_access(const std::shared_ptr<ParameterContents>& p, std::vector<Expr> args) {
    TESSERA_USER_CHECK(p) << "access to an undefined ImageParam.";
    expand_placeholder(args, p->dimensions);
    TESSERA_USER_CHECK(int(args.size()) == p->dimensions)
        << "ImageParam " << p->name << " has " << p->dimensions << " dimensions but is accessed with "
        << args.size() << " coordinates. Pass one coordinate per dimension.";
    for (size_t i = 0; i < args.size(); i++) {
        TESSERA_USER_CHECK(args[i].defined() && args[i].type().is_int_or_uint())
            << "ImageParam " << p->name << " is accessed with coordinate " << i << " of type "
            << (args[i].defined() ? type_name(args[i].type()) : std::string("(undefined)"))
            << "; coordinates are integers. Cast it with cast<int>().";
        args[i] = cast(Int(32), args[i]);
    }
    return ir::Call::make_image(p->type, p->name, std::move(args), nullptr, p);
}

namespace {

std::string describe(const ParameterContents& p) {
    return (p.is_output ? "the output buffer " : "ImageParam ") + p.name;
}

void check_dimension(const ParameterContents& p, int dim) {
    TESSERA_USER_CHECK(dim >= 0 && dim < p.dimensions)
        << describe(p) << " has " << p.dimensions << " dimensions; there is no dimension " << dim << ".";
}

}  // namespace

void set_buffer_constraint(ParameterContents& p, int dim, BufferField field, const Expr& value) {
    check_dimension(p, dim);
    const char* name = field == BufferField::Min      ? "set_min"
                       : field == BufferField::Extent ? "set_extent"
                                                      : "set_stride";
    Expr v = value;
    if (v.defined()) {
        TESSERA_USER_CHECK(v.type().is_scalar() && v.type().is_int_or_uint() && !v.type().is_bool())
            << describe(p) << ".dim(" << dim << ")." << name << "(" << v << "): the value has type "
            << type_name(v.type()) << "; give an integer (an int constant or an Expr of Params).";
        if (v.type() != Int(32)) v = cast(Int(32), v);
    }
    BufferConstraint& c = p.constraints.at(size_t(dim));
    (field == BufferField::Min ? c.min : field == BufferField::Extent ? c.extent : c.stride) = v;
    p.constraints_version++;
}

namespace {

// An estimate must be an integer known when the pipeline is scheduled.
Expr checked_estimate(const ParameterContents& p, int dim, const Expr& value, const char* what) {
    TESSERA_USER_CHECK(value.defined() && value.type().is_scalar() && value.type().is_int_or_uint() &&
                       ir::as_const_int(value))
        << describe(p) << ".dim(" << dim << ").set_estimate: the " << what
        << " must be an integer constant; got " << value << ".";
    return Expr(int32_t(*ir::as_const_int(value)));
}

}  // namespace

void set_scalar_estimate(ParameterContents& p, const Expr& value) { p.scalar_estimate = value; }

void set_buffer_estimate(ParameterContents& p, int dim, const Expr& min, const Expr& extent) {
    check_dimension(p, dim);
    Range r(checked_estimate(p, dim, min, "min"), checked_estimate(p, dim, extent, "extent"));
    TESSERA_USER_CHECK(*ir::as_const_int(r.extent) > 0)
        << describe(p) << ".dim(" << dim << ").set_estimate: the extent is " << r.extent
        << "; give a positive one.";
    p.estimates.resize(size_t(p.dimensions));
    p.estimates[size_t(dim)] = r;
}

void set_buffer_estimates(ParameterContents& p, const std::vector<Range>& region) {
    TESSERA_USER_CHECK(int(region.size()) == p.dimensions)
        << describe(p) << ".set_estimates: " << region.size() << " ranges for " << p.dimensions
        << " dimensions; give one Range (min, extent) per dimension.";
    for (size_t d = 0; d < region.size(); d++)
        set_buffer_estimate(p, int(d), region[d].min, region[d].extent);
}

Expr image_param_field(const std::shared_ptr<ParameterContents>& p, const char* field, int dim) {
    check_dimension(*p, dim);
    const std::string f = field;
    std::string name = f == "min"      ? lowering::buffer_min(p->name, dim)
                       : f == "extent" ? lowering::buffer_extent(p->name, dim)
                                       : lowering::buffer_stride(p->name, dim);
    return ir::Variable::make_param(Int(32), name, p);
}

}  // namespace lang

Expr ParamDimension::max() const { return min() + extent() - 1; }

ParamDimension ParamDimension::set_min(const Expr& min) {
    lang::set_buffer_constraint(*param_, dim_, lang::BufferField::Min, min);
    return *this;
}

ParamDimension ParamDimension::set_extent(const Expr& extent) {
    lang::set_buffer_constraint(*param_, dim_, lang::BufferField::Extent, extent);
    return *this;
}

ParamDimension ParamDimension::set_stride(const Expr& stride) {
    lang::set_buffer_constraint(*param_, dim_, lang::BufferField::Stride, stride);
    return *this;
}

ParamDimension ParamDimension::set_bounds(const Expr& min, const Expr& extent) {
    return set_min(min).set_extent(extent);
}

Type OutputImageParam::type() const { return contents_ ? contents_->type : Type(); }
int OutputImageParam::dimensions() const { return contents_ ? contents_->dimensions : 0; }

Buffer<> ImageParam::get() const {
    auto b = lang::bound_buffer(*contents_);
    TESSERA_USER_CHECK(b) << "ImageParam " << name() << " is not set.";
    return Buffer<>(b);
}

ImageParam::operator Func() const {
    Func f(lang::unique_name(name() + "_im"));
    std::vector<Expr> vars;
    for (int d = 0; d < dimensions(); d++) vars.push_back(Var::implicit(d));
    f(vars) = lang::image_param_access(contents_, vars);
    return f;
}

}  // namespace tessera
