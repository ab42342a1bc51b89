#pragma once
// The graph layer: DNN models as graphs of operators, each computed by Tessera definitions.
//
//     graph::Builder b;
//     auto x = b.input("x", Float(32), {"N", 3, 224, 224});
//     auto y = b.relu(b.conv(x, b.constant(weights), b.constant(bias), {.pads = {1, 1, 1, 1}}));
//     b.output(y, "y");
//     graph::CompiledModel model = graph::compile(b.build(), get_host_target(), {{"x", {1, 3, 224, 224}}});
//     auto outputs = model.run({{"x", image}});
//
// Shapes are written outermost first, as ONNX and numpy write them: a tensor of shape
// {N, C, H, W} is dense with W varying fastest.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tessera/autotune.h"
#include "tessera/error.h"
#include "tessera/func.h"
#include "tessera/target.h"
#include "tessera/type.h"

namespace tessera::graph {

// What a model asks for that the graph layer does not support (an operator, an attribute value,
// an element type): a CompileError that names the node and says what is supported.
class UnsupportedError : public CompileError {
public:
    explicit UnsupportedError(const std::string& message) : CompileError(message) {}
};

// A tensor on the host: an element type, a shape and dense row-major data, shared by copies.
class Tensor {
public:
    Tensor() = default;
    // Zero-filled.
    Tensor(Type type, std::vector<int64_t> shape);
    template <typename T>
    static Tensor from(std::vector<int64_t> shape, const std::vector<T>& values) {
        Tensor t(type_of<T>(), std::move(shape));
        t.check_element_count(values.size());
        T* out = t.data<T>();
        for (size_t i = 0; i < values.size(); i++) out[i] = values[i];
        return t;
    }
    template <typename T>
    static Tensor scalar(T value) {
        return from<T>({}, {value});
    }

    bool defined() const { return storage_ != nullptr; }
    Type type() const { return type_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    int rank() const { return int(shape_.size()); }
    int64_t elements() const;
    size_t bytes() const;

    void* data() { return storage_.get(); }
    const void* data() const { return storage_.get(); }
    template <typename T>
    T* data() {
        check_element_type(type_of<T>());
        return reinterpret_cast<T*>(storage_.get());
    }
    template <typename T>
    const T* data() const {
        check_element_type(type_of<T>());
        return reinterpret_cast<const T*>(storage_.get());
    }
    // Every element converted to double (int64 beyond 2^53 loses bits), for comparisons and printing.
    std::vector<double> to_doubles() const;
    // Every element converted to int64 (floats truncated), for shape arithmetic.
    std::vector<int64_t> to_int64s() const;
    // A copy that owns its own data.
    Tensor clone() const;
    // A tensor seeing bytes of base from byte_offset on, which it keeps alive.
    static Tensor view(const Tensor& base, size_t byte_offset, Type type, std::vector<int64_t> shape);
    // The same data seen with another shape of as many elements.
    Tensor reshaped(std::vector<int64_t> shape) const;

private:
    void check_element_type(Type t) const;
    void check_element_count(size_t n) const;
    Type type_ = Float(32);
    std::vector<int64_t> shape_;
    std::shared_ptr<uint8_t[]> storage_;  // aliases the allocation, offset for views
};

// "float32[1,3,640,640]"
std::string describe(const Tensor& t);

// One dimension of a value's shape: a size, or a name bound to a size when the model is compiled.
struct Dim {
    int64_t size = -1;
    std::string symbol;
    Dim(int64_t s) : size(s) {}
    Dim(int s) : size(s) {}
    Dim(std::string name) : symbol(std::move(name)) {}
    Dim(const char* name) : symbol(name) {}
    bool is_known() const { return size >= 0; }
    bool operator==(const Dim& o) const { return size == o.size && symbol == o.symbol; }
};
using Shape = std::vector<Dim>;

// An attribute of a node, as ONNX spells them.
using Attribute = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, Tensor>;

class Attributes {
public:
    void set(const std::string& name, Attribute value) { values_[name] = std::move(value); }
    bool has(const std::string& name) const { return values_.count(name) != 0; }
    const Attribute* find(const std::string& name) const;
    // The attribute, or fallback when it is absent; a CompileError when it has another kind.
    int64_t get_int(const std::string& name, int64_t fallback) const;
    float get_float(const std::string& name, float fallback) const;
    std::string get_string(const std::string& name, const std::string& fallback) const;
    std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& fallback = {}) const;
    std::vector<float> get_floats(const std::string& name, const std::vector<float>& fallback = {}) const;
    const std::map<std::string, Attribute>& all() const { return values_; }
    // Whom a CompileError about a wrong attribute kind names, e.g. "node conv1 (Conv)".
    std::string owner;

private:
    std::map<std::string, Attribute> values_;
};

// A tensor value of a graph: produced by one node, or an input, or a constant.
struct Value {
    std::string name;
    Type type = Float(32);
    Shape shape;  // empty with shape_known false until shape inference
    bool shape_known = true;
    Tensor constant;  // defined for constants (initializers, folded values)
};

struct Node {
    std::string name;
    std::string op;            // the ONNX op type: "Conv", "Relu", ...
    std::vector<int> inputs;   // value ids; -1 for an optional input left out
    std::vector<int> outputs;  // value ids
    Attributes attributes;
};

// A DAG of nodes over values. Nodes are kept in an order where every node comes after the nodes
// whose outputs it reads.
class Graph {
public:
    std::vector<Value> values;
    std::vector<Node> nodes;
    std::vector<int> inputs;   // value ids the caller provides
    std::vector<int> outputs;  // value ids the caller receives
    int opset = 17;

    int add_value(Value v);
    // A value id by name; -1 when there is none.
    int find_value(const std::string& name) const;
    // Readable, stable text: one line per input, constant, node and output.
    std::string to_string() const;
};

// Attributes of a convolution, as ONNX's Conv names them; empty lists take ONNX's defaults.
struct ConvOptions {
    std::vector<int64_t> strides, pads, dilations;
    int64_t group = 1;
};

// Builds a graph operation by operation. Every method returns the id of the value it made.
class Builder {
public:
    int input(const std::string& name, Type type, Shape shape);
    int constant(const Tensor& value, const std::string& name = "");
    // Any operator by its ONNX name; returns its outputs.
    std::vector<int> op(const std::string& op_type, const std::vector<int>& inputs,
                        Attributes attributes = {}, int num_outputs = 1, const std::string& node_name = "");
    int op1(const std::string& op_type, const std::vector<int>& inputs, Attributes attributes = {}) {
        return op(op_type, inputs, std::move(attributes))[0];
    }
    void output(int value, const std::string& name = "");

    int conv(int x, int weights, int bias = -1, const ConvOptions& options = {});
    int matmul(int a, int b) { return op1("MatMul", {a, b}); }
    int add(int a, int b) { return op1("Add", {a, b}); }
    int sub(int a, int b) { return op1("Sub", {a, b}); }
    int mul(int a, int b) { return op1("Mul", {a, b}); }
    int div(int a, int b) { return op1("Div", {a, b}); }
    int relu(int x) { return op1("Relu", {x}); }
    int sigmoid(int x) { return op1("Sigmoid", {x}); }
    int hard_swish(int x) { return op1("HardSwish", {x}); }
    int batch_norm(int x, int scale, int bias, int mean, int var, float epsilon = 1e-5f);

    const Graph& graph() const { return graph_; }
    Graph build() const { return graph_; }

private:
    std::string fresh_name(const std::string& stem);
    Graph graph_;
    int next_name_ = 0;
};

// What a user's schedule for a fused group receives: the Func the group realizes (its Vars take
// the innermost dimension first), its shape (outermost first), and every Func its operators
// defined, by name: a node's output is named after the node (characters other than letters and
// digits become _), its inner Funcs add a suffix (conv1_accumulators, conv1_padded).
struct GroupScheduleContext {
    Func output;
    std::vector<int64_t> shape;
    std::map<std::string, Func> funcs;
    Target target;
};
using GroupSchedule = std::function<void(GroupScheduleContext&)>;

// What compile() is asked for.
struct CompileOptions {
    // Schedules of the user's, by node name, replacing the schedule of the group the node is in.
    std::map<std::string, GroupSchedule> schedules;
    // The size of each named symbolic dimension, or the whole shape of an input by its name.
    std::map<std::string, std::vector<int64_t>> input_shapes;
    // Inputs whose values are fixed when the model is compiled, as constants: inputs that give
    // shapes, axes or pads, which operators need at compile time. run() checks that it is given
    // the same values.
    std::map<std::string, Tensor> input_values;
    // Values kept as outputs of their own, for comparing runtimes op by op (by value name).
    std::vector<std::string> keep;
    bool fuse = true;         // operator fusion into groups
    bool plan_memory = true;  // reuse of buffers by lifetime
    // Prints the time of every graph pass and every group's compilation to stderr (also with the
    // environment variable TESSERA_TIME_PASSES=1).
    bool time_passes = false;
    // Times every group each time the model runs (profile_text() prints the totals).
    bool profile = false;
    // A tuning records file (tune_model, `tessera-onnx tune`): a group whose pipeline has a record
    // for the target runs the fastest recorded schedule instead of its operators' own. "": none.
    std::string tuning_records;
};

struct MemoryPlanSummary {
    int64_t planned_peak_bytes = 0;     // the arena the plan needs
    int64_t unplanned_total_bytes = 0;  // every intermediate tensor in a buffer of its own
    int buffers = 0;
};

class CompiledModelContents;

// A model compiled for a target: run() executes its fused groups in order on planned buffers.
class CompiledModel {
public:
    CompiledModel() = default;
    explicit CompiledModel(std::shared_ptr<CompiledModelContents> contents)
        : contents_(std::move(contents)) {}

    // Runs the model on inputs named as the graph's inputs; returns every output (and every kept
    // value) by name. A missing input, or one of another type or shape, is a RuntimeError.
    std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs) const;

    const Graph& optimized_graph() const;
    // The fused groups, one per line, with the ops each computes.
    std::string groups_text() const;
    // The buffers of the memory plan, with offsets and lifetimes, and the summary.
    std::string memory_plan_text() const;
    MemoryPlanSummary memory_plan() const;
    double compile_seconds() const;
    int groups() const;
    int compiled_pipelines() const;  // distinct group signatures compiled
    // With CompileOptions::profile: every group's run time, summed over the runs so far, the
    // slowest first.
    std::string profile_text() const;

private:
    std::shared_ptr<CompiledModelContents> contents_;
};

CompiledModel compile(const Graph& g, const Target& target, const CompileOptions& options = {});
CompiledModel compile(const Graph& g, const Target& target,
                      const std::map<std::string, std::vector<int64_t>>& input_shapes);

// The graph after the passes compile() runs before compiling groups (for printing and tests).
Graph optimize(const Graph& g, const Target& target, const CompileOptions& options = {});

// What tuning did for one distinct group.
struct GroupTuning {
    std::string nodes;      // the group's operators, by node name
    std::string signature;  // of its pipeline (tessera::pipeline_signature)
    std::string status;     // "tuned", "already tuned" (the records had enough), or why it failed
    int trials = 0;         // measured by this call
    double best_ms = 0, seconds = 0;
};

// Tunes every distinct fusion group of the model as compile() with `options` makes them (groups
// whose pipelines share a signature share their tuning; groups the user scheduled are left out),
// appending to tuning.records_file, which must be given. tuning.trials is per group and counts
// the records already in the file, so an interrupted run resumes; a time budget is shared out
// among the groups left to tune. compile() with CompileOptions::tuning_records then applies them.
std::vector<GroupTuning> tune_model(const Graph& g, const Target& target, const CompileOptions& options,
                                    const TuneOptions& tuning);

}  // namespace tessera::graph
