#include "graph/ops/operator.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace tessera::graph {

int64_t TensorFunc::elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

Expr TensorFunc::operator()(const std::vector<Expr>& index) const {
    TESSERA_INTERNAL_CHECK(int(index.size()) == rank())
        << func.name() << " of rank " << rank() << " indexed with " << index.size() << " coordinates";
    return func(std::vector<Expr>(index.rbegin(), index.rend()));
}

TensorFunc define_tensor(const std::string& name, Type type, const std::vector<int64_t>& shape,
                         const std::function<Expr(const std::vector<Expr>&)>& value) {
    std::vector<Var> vars;  // outermost first
    for (size_t i = 0; i < shape.size(); i++) vars.emplace_back("d" + std::to_string(i));
    std::vector<Expr> index(vars.begin(), vars.end());
    Expr e = value(index);
    if (e.type() != type) e = cast(type, e);
    Func f(name);
    f(std::vector<Var>(vars.rbegin(), vars.rend())) = e;
    return TensorFunc{f, type, shape};
}

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); i++) s += (i ? "," : "") + std::to_string(shape[i]);
    return s + "]";
}

Expr scalar_expr(const Tensor& t) {
    Expr e = t.type().is_int() && t.type().bits() == 64 ? Expr(t.to_int64s()[0]) : Expr(t.to_doubles()[0]);
    return cast(t.type(), e);
}

int normalize_axis(const OpContext& ctx, int64_t axis, int64_t rank, const char* what) {
    if (axis < -rank || axis >= rank) {
        TESSERA_GRAPH_ERROR(ctx) << what << " " << axis << " is out of range for a tensor of rank " << rank
                                 << (rank == 0 ? ""
                                               : " (it must be in [" + std::to_string(-rank) + ", " +
                                                     std::to_string(rank - 1) + "])")
                                 << ".";
    }
    return int(axis < 0 ? axis + rank : axis);
}

std::optional<std::vector<int64_t>> ints_input_or_attribute(const OpContext& ctx, int input,
                                                            const char* name) {
    if (ctx.has_input(input)) return ctx.constant_input(input, name).to_int64s();
    if (ctx.attributes().has(name)) return ctx.attributes().get_ints(name);
    return std::nullopt;
}

const TensorFunc& OpContext::input(int i) const {
    if (!has_input(i)) TESSERA_GRAPH_ERROR(*this) << "input " << i << " is required but missing.";
    return inputs[i];
}

const Tensor& OpContext::constant_input(int i, const char* what) const {
    input(i);
    if (!constant_data[i]) {
        TESSERA_GRAPH_ERROR(*this)
            << "input " << i << " (" << what
            << ") must be a constant, or computable from constants and shapes at "
               "compile time; it depends on the model's inputs. Give such an input's value "
               "when compiling (CompileOptions::input_values; tessera-onnx does so for "
               "small integer inputs).";
    }
    return *constant_data[i];
}

std::string OpContext::where() const { return "node " + node.name + " (" + node.op + ")"; }

std::string OpContext::func_name(const std::string& suffix) const {
    std::string name = node.name.empty() ? node.op : node.name;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "n" + name;
    return suffix.empty() ? name : name + "_" + suffix;
}

namespace {

std::map<std::string, OperatorInfo>& registry() {
    static std::map<std::string, OperatorInfo> operators;
    return operators;
}

void register_all() {
    static std::once_flag once;
    std::call_once(once, [] {
        register_elementwise_operators();
        register_activation_operators();
        register_convolution_operators();
        register_matrix_product_operators();
        register_reduction_operators();
        register_softmax_operators();
        register_normalization_operators();
        register_shape_operators();
        register_data_movement_operators();
        register_pooling_operators();
        register_resize_operators();
    });
}

}  // namespace

void register_operator(OperatorInfo info) {
    const std::string name = info.name;
    registry().emplace(name, std::move(info));
}

const OperatorInfo* find_operator(const std::string& op_type) {
    register_all();
    auto it = registry().find(op_type);
    return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> supported_operators() {
    register_all();
    std::vector<std::string> names;
    for (const auto& [name, info] : registry()) names.push_back(name);
    return names;
}

}  // namespace tessera::graph
