// A fuzz run of the ONNX loader: valid seed models mutated at random, either their bytes (bits
// flipped, bytes replaced, cut short, bytes inserted, chunks duplicated or removed) or the fields
// of the parsed model (numbers set to edge values, names swapped, nodes and other elements removed
// or repeated), each mutant loaded and, when it loads, optimized and compiled with the input shapes
// it declares. A tessera::Error is the expected outcome for a broken model; an internal error or
// any other exception fails the run, and so does a crash, which the sanitizer build makes of every
// memory error and undefined behaviour.
//
// libFuzzer would steer the mutations by coverage, but it needs clang and Tessera builds with g++;
// a loop of mutations from a fixed seed runs in every build and repeats exactly, so a failure seen
// once is seen again.
//
// Usage: onnx_loader_fuzz [more seed model files...]
//   TESSERA_FUZZ_ITERATIONS  mutants to try (default 800, under a minute in the sanitizer build)
//   TESSERA_FUZZ_SEED        the random seed (default 1)
//   TESSERA_FUZZ_ONLY        try only this iteration (to reproduce a failure)
//   TESSERA_FUZZ_VERBOSE=1   print every mutant's error
//   TESSERA_FUZZ_TRACE=1     print every mutant before trying it: the last one printed is the one
//                            that crashed (AddressSanitizer's reports name it anyway, but GCC's
//                            UndefinedBehaviorSanitizer, a runtime of its own, exits without)

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "tessera/graph.h"
#include "tessera/onnx.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

using namespace tessera;

namespace {

// ---- Seeds -------------------------------------------------------------------------------------

onnx::TensorProto* add_initializer(onnx::GraphProto& g, const std::string& name, std::vector<int64_t> dims,
                                   int data_type) {
    onnx::TensorProto* t = g.add_initializer();
    t->set_name(name);
    t->set_data_type(data_type);
    for (int64_t d : dims) t->add_dims(d);
    return t;
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op, const std::vector<std::string>& inputs,
                          const std::string& output) {
    onnx::NodeProto* n = g.add_node();
    n->set_name(output);
    n->set_op_type(op);
    for (const std::string& in : inputs) n->add_input(in);
    n->add_output(output);
    return n;
}

void add_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& values) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
}

void add_float(onnx::NodeProto* n, const std::string& name, float value) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(value);
}

void add_value_info(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* values, const std::string& name,
                    const std::vector<int64_t>& dims) {
    onnx::ValueInfoProto* v = values->Add();
    v->set_name(name);
    onnx::TypeProto::Tensor* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// x: float32[1,2,6,6] -> Conv 3x3 (pads, strides; weights as raw data, bias as float_data) ->
// LeakyRelu -> MaxPool 2x2 -> Reshape (to a shape held by an int64 initializer) -> Add a constant
// -> y. Small sizes keep each compile short; every kind of field the loader reads is in it.
std::string conv_model() {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    onnx::GraphProto& g = *m.mutable_graph();
    g.set_name("conv_seed");
    add_value_info(g.mutable_input(), "x", {1, 2, 6, 6});
    std::vector<float> w(3 * 2 * 3 * 3);
    for (size_t i = 0; i < w.size(); i++) w[i] = float(i % 7) * 0.25f - 0.5f;
    add_initializer(g, "w", {3, 2, 3, 3}, onnx::TensorProto::FLOAT)
        ->set_raw_data(std::string(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float)));
    onnx::TensorProto* b = add_initializer(g, "b", {3}, onnx::TensorProto::FLOAT);
    for (float v : {0.5f, -1.0f, 2.0f}) b->add_float_data(v);
    onnx::TensorProto* shape = add_initializer(g, "shape", {2}, onnx::TensorProto::INT64);
    for (int64_t v : {1, 27}) shape->add_int64_data(v);
    onnx::TensorProto* c = add_initializer(g, "c", {27}, onnx::TensorProto::FLOAT);
    for (int i = 0; i < 27; i++) c->add_float_data(float(i));
    onnx::NodeProto* conv = add_node(g, "Conv", {"x", "w", "b"}, "conv");
    add_ints(conv, "pads", {1, 1, 1, 1});
    add_ints(conv, "strides", {1, 1});
    add_ints(conv, "kernel_shape", {3, 3});
    add_float(add_node(g, "LeakyRelu", {"conv"}, "act"), "alpha", 0.1f);
    onnx::NodeProto* pool = add_node(g, "MaxPool", {"act"}, "pool");
    add_ints(pool, "kernel_shape", {2, 2});
    add_ints(pool, "strides", {2, 2});
    add_node(g, "Reshape", {"pool", "shape"}, "flat");
    add_node(g, "Add", {"flat", "c"}, "y");
    add_value_info(g.mutable_output(), "y", {1, 27});
    return m.SerializeAsString();
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "onnx_loader_fuzz: cannot read the seed model " << path << "\n";
        std::exit(2);
    }
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

// ---- Mutations ---------------------------------------------------------------------------------

using Random = std::mt19937_64;

size_t below(Random& rng, size_t n) { return n == 0 ? 0 : size_t(rng() % n); }

// One to three edits of the bytes, blind to their structure: most mutants no longer parse, and
// those that do have a field or a length changed anywhere. log describes the edits.
std::string mutate_bytes(std::string bytes, Random& rng, std::ostringstream& log) {
    const int edits = 1 + int(below(rng, 3));
    for (int e = 0; e < edits; e++) {
        const size_t at = below(rng, bytes.size() + 1);
        switch (below(rng, 6)) {
            case 0:  // flip a bit
                if (at < bytes.size()) bytes[at] = char(bytes[at] ^ (1 << below(rng, 8)));
                log << " flip@" << at;
                break;
            case 1: {  // a byte that varints and lengths treat specially
                static const unsigned char special[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x12, 0x3a};
                if (at < bytes.size()) bytes[at] = char(special[below(rng, sizeof special)]);
                log << " set@" << at;
                break;
            }
            case 2:  // cut short
                bytes.resize(at);
                log << " cut@" << at;
                break;
            case 3: {  // insert random bytes
                std::string extra(1 + below(rng, 8), '\0');
                for (char& c : extra) c = char(rng());
                bytes.insert(at, extra);
                log << " insert" << extra.size() << "@" << at;
                break;
            }
            case 4: {  // duplicate a chunk somewhere
                const size_t from = below(rng, bytes.size()), length = 1 + below(rng, 32);
                const std::string chunk = bytes.substr(from, length);
                bytes.insert(at, chunk);
                log << " dup" << chunk.size() << "@" << from << "->" << at;
                break;
            }
            default: {  // remove a chunk
                const size_t length = 1 + below(rng, 16);
                if (at < bytes.size()) bytes.erase(at, length);
                log << " erase" << length << "@" << at;
                break;
            }
        }
    }
    return bytes;
}

// A field of a message found by walking the model: one element when the field is repeated.
struct FieldSite {
    google::protobuf::Message* message;
    const google::protobuf::FieldDescriptor* field;
    int index;  // -1 for a field that is not repeated
};

void collect_fields(google::protobuf::Message& m, std::vector<FieldSite>& sites,
                    std::vector<std::string>& strings) {
    const google::protobuf::Reflection* r = m.GetReflection();
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    r->ListFields(m, &fields);
    for (const google::protobuf::FieldDescriptor* f : fields) {
        const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
        for (int i = 0; i < n; i++) {
            sites.push_back({&m, f, f->is_repeated() ? i : -1});
            if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE)
                collect_fields(
                    f->is_repeated() ? *r->MutableRepeatedMessage(&m, f, i) : *r->MutableMessage(&m, f),
                    sites, strings);
            else if (f->type() == google::protobuf::FieldDescriptor::TYPE_STRING)
                strings.push_back(f->is_repeated() ? r->GetRepeatedString(m, f, i) : r->GetString(m, f));
        }
    }
}

// A new value for one field: an edge value, a neighbour of the old one, or, for a string, another
// string of the model (a name, to tangle the graph). A repeated message loses or repeats one.
void mutate_field(const FieldSite& site, Random& rng, const std::vector<std::string>& strings) {
    using FD = google::protobuf::FieldDescriptor;
    google::protobuf::Message& m = *site.message;
    const google::protobuf::Reflection* r = m.GetReflection();
    const FD* f = site.field;
    const int i = site.index;
    static const int64_t integers[] = {
        0, 1, -1, 2, 3, 7, 255, int64_t(1) << 31, int64_t(1) << 40, INT64_MAX, INT64_MIN, 16};
    const int64_t integer = integers[below(rng, std::size(integers))];
    static const double reals[] = {0.0,
                                   -1.0,
                                   0.5,
                                   1e30,
                                   -1e30,
                                   std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::quiet_NaN()};
    const double real = reals[below(rng, std::size(reals))];
    switch (f->cpp_type()) {
        case FD::CPPTYPE_INT32:
            i < 0 ? r->SetInt32(&m, f, int32_t(integer)) : r->SetRepeatedInt32(&m, f, i, int32_t(integer));
            break;
        case FD::CPPTYPE_INT64:
            i < 0 ? r->SetInt64(&m, f, integer) : r->SetRepeatedInt64(&m, f, i, integer);
            break;
        case FD::CPPTYPE_UINT32:
            i < 0 ? r->SetUInt32(&m, f, uint32_t(integer))
                  : r->SetRepeatedUInt32(&m, f, i, uint32_t(integer));
            break;
        case FD::CPPTYPE_UINT64:
            i < 0 ? r->SetUInt64(&m, f, uint64_t(integer))
                  : r->SetRepeatedUInt64(&m, f, i, uint64_t(integer));
            break;
        case FD::CPPTYPE_FLOAT:
            i < 0 ? r->SetFloat(&m, f, float(real)) : r->SetRepeatedFloat(&m, f, i, float(real));
            break;
        case FD::CPPTYPE_DOUBLE:
            i < 0 ? r->SetDouble(&m, f, real) : r->SetRepeatedDouble(&m, f, i, real);
            break;
        case FD::CPPTYPE_BOOL:
            i < 0 ? r->SetBool(&m, f, !r->GetBool(m, f))
                  : r->SetRepeatedBool(&m, f, i, !r->GetRepeatedBool(m, f, i));
            break;
        case FD::CPPTYPE_ENUM: {
            const google::protobuf::EnumDescriptor* e = f->enum_type();
            const int value = e->value(int(below(rng, size_t(e->value_count()))))->number();
            i < 0 ? r->SetEnumValue(&m, f, value) : r->SetRepeatedEnumValue(&m, f, i, value);
            break;
        }
        case FD::CPPTYPE_STRING: {
            std::string value = i < 0 ? r->GetString(m, f) : r->GetRepeatedString(m, f, i);
            switch (below(rng, 4)) {
                case 0: value = strings.empty() ? "" : strings[below(rng, strings.size())]; break;
                case 1: value.clear(); break;
                case 2: value.resize(below(rng, value.size() + 1)); break;
                default: value += value.substr(0, below(rng, value.size() + 1)) + "x"; break;
            }
            i < 0 ? r->SetString(&m, f, value) : r->SetRepeatedString(&m, f, i, value);
            break;
        }
        case FD::CPPTYPE_MESSAGE:
            if (i < 0) {
                r->ClearField(&m, f);
            } else if (below(rng, 2) == 0) {  // remove this element
                r->SwapElements(&m, f, i, r->FieldSize(m, f) - 1);
                r->RemoveLast(&m, f);
            } else {  // repeat it
                r->AddMessage(&m, f)->CopyFrom(r->GetRepeatedMessage(m, f, i));
            }
            break;
    }
}

// One to three fields of the parsed model given new values, serialized again: mutants that parse,
// whose mistakes are for the loader and the compiler to find.
std::string mutate_fields(const std::string& bytes, Random& rng, std::ostringstream& log) {
    onnx::ModelProto model;
    model.ParseFromString(bytes);
    const int edits = 1 + int(below(rng, 3));
    for (int e = 0; e < edits; e++) {
        // Collected again after each edit: removing an element moves the others.
        std::vector<FieldSite> sites;
        std::vector<std::string> strings;
        collect_fields(model, sites, strings);
        if (sites.empty()) break;
        const FieldSite& site = sites[below(rng, sites.size())];
        log << " field " << site.field->full_name() << "[" << site.index << "]";
        mutate_field(site, rng, strings);
    }
    return model.SerializeAsString();
}

// A mutant of bytes: its fields edited, its bytes edited, or both.
std::string mutate(const std::string& bytes, Random& rng, std::ostringstream& log) {
    switch (below(rng, 4)) {
        case 0: return mutate_bytes(bytes, rng, log);
        case 1: return mutate_bytes(mutate_fields(bytes, rng, log), rng, log);
        default: return mutate_fields(bytes, rng, log);
    }
}

// ---- One mutant --------------------------------------------------------------------------------

// What became of a mutant: where it stopped, or that it compiled.
enum Outcome {
    NotLoaded,
    NotOptimized,
    TooLarge,
    AlreadyCompiled,
    NotCompiled,
    Compiled,
    Internal,
    Outcomes
};
const char* const outcome_names[Outcomes] = {"not loaded",
                                             "loaded but not optimized",
                                             "too large to compile",
                                             "optimized as a graph compiled before",
                                             "optimized but not compiled",
                                             "compiled",
                                             "internal errors"};

// The bytes of the values of g whose shapes are known, saturating far above any limit.
int64_t known_value_bytes(const graph::Graph& g) {
    constexpr int64_t cap = int64_t(1) << 50;
    int64_t total = 0;
    for (const graph::Value& v : g.values) {
        int64_t bytes = v.type.bytes();
        for (const graph::Dim& d : v.shape) {
            if (!d.is_known()) bytes = 0;
            bytes = d.size > 0 && bytes > cap / d.size ? cap : bytes * d.size;
        }
        total = std::min(cap, total + bytes);
    }
    return total;
}

// What compiling g depends on: its printed form (nodes, attributes, shapes) and the data of its
// small constants (shapes, axes, scalars). Mutants that differ only in the data of weights compile
// the same code, and compiling is most of a run's time.
std::string compile_signature(const graph::Graph& g) {
    std::string signature = g.to_string();
    for (const graph::Value& v : g.values)
        if (v.constant.defined() && v.constant.elements() <= 16)
            signature.append(static_cast<const char*>(v.constant.data()), v.constant.bytes());
    return signature;
}

// What a sanitizer's report, or an internal error, is followed by: which mutant it was, to rerun it.
std::string current_mutant;
void report_current_mutant() {
    std::fprintf(stderr, "onnx_loader_fuzz: the mutant was %s\n", current_mutant.c_str());
}

class FuzzRun {
public:
    explicit FuzzRun(bool verbose) : verbose_(verbose) {}

    // Loads, optimizes and compiles bytes; a tessera::Error stops it where it is thrown. Any other
    // exception goes to the caller.
    Outcome try_mutant(const std::string& bytes) {
        graph::Graph g;
        graph::CompileOptions options;
        try {
            g = graph::load_onnx_from_bytes(bytes, "mutant");
        } catch (const Error& e) {
            return stopped(e, NotLoaded);
        }
        for (int id : g.inputs)
            for (const graph::Dim& d : g.values[id].shape)
                if (!d.is_known() && !d.symbol.empty()) options.input_shapes[d.symbol] = {2};
        try {
            const graph::Graph optimized = graph::optimize(g, target_, options);
            // A model with tensors this large is valid, but a user would not compile it here, and it
            // would spend the run's time and memory on one mutant.
            if (known_value_bytes(optimized) > (int64_t(1) << 26)) return TooLarge;
            if (!compiled_.insert(compile_signature(optimized)).second) return AlreadyCompiled;
        } catch (const Error& e) {
            return stopped(e, NotOptimized);
        }
        try {
            graph::compile(g, target_, options);
        } catch (const Error& e) {
            return stopped(e, NotCompiled);
        }
        return Compiled;
    }

private:
    // A tessera::Error is what a broken model should give, but not an internal error: a model's
    // mistake must be a CompileError saying what is wrong. The run goes on, to find the others,
    // and fails at its end.
    Outcome stopped(const Error& e, Outcome outcome) {
        if (dynamic_cast<const InternalError*>(&e)) {
            std::cerr << "onnx_loader_fuzz: " << current_mutant << " gave an internal error: " << e.what()
                      << "\n";
            return Internal;
        }
        if (verbose_) std::cerr << current_mutant << ": " << e.what() << "\n";
        return outcome;
    }

    const Target target_ = get_host_target();
    const bool verbose_;
    std::set<std::string> compiled_;
};

int64_t env_int(const char* name, int64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(report_current_mutant);
#endif
    std::vector<std::string> seeds = {conv_model()};
    for (int i = 1; i < argc; i++) seeds.push_back(read_file(argv[i]));
    const int64_t iterations = env_int("TESSERA_FUZZ_ITERATIONS", 800);
    const uint64_t seed = uint64_t(env_int("TESSERA_FUZZ_SEED", 1));
    const int64_t only = env_int("TESSERA_FUZZ_ONLY", -1);
    const bool trace = env_int("TESSERA_FUZZ_TRACE", 0) != 0;

    // Every seed must load and compile, or the run tests little past the parser.
    for (size_t s = 0; s < seeds.size(); s++) {
        try {
            graph::compile(graph::load_onnx_from_bytes(seeds[s], "seed " + std::to_string(s)),
                           get_host_target());
        } catch (const Error& e) {
            std::cerr << "onnx_loader_fuzz: seed model " << s << " does not compile unmutated: " << e.what()
                      << "\n";
            return 1;
        }
    }

    FuzzRun run(env_int("TESSERA_FUZZ_VERBOSE", 0) != 0);
    const auto start = std::chrono::steady_clock::now();
    int64_t counts[Outcomes] = {}, tried = 0;
    for (int64_t i = 0; i < iterations; i++) {
        if (only >= 0 && i != only) continue;
        // Each iteration draws from a generator of its own, so that it can be rerun alone.
        Random rng(seed * 1000003 + uint64_t(i));
        const size_t s = size_t(rng() % seeds.size());
        std::ostringstream log;
        const std::string mutant = mutate(seeds[s], rng, log);
        current_mutant = "iteration " + std::to_string(i) + " (TESSERA_FUZZ_SEED=" + std::to_string(seed) +
                         " TESSERA_FUZZ_ONLY=" + std::to_string(i) + "): seed " + std::to_string(s) + "," +
                         log.str();
        if (trace) std::cerr << "onnx_loader_fuzz: trying " << current_mutant << std::endl;
        try {
            counts[run.try_mutant(mutant)]++;
            tried++;
        } catch (const std::exception& e) {
            std::cerr << "onnx_loader_fuzz: " << current_mutant << " threw " << typeid(e).name()
                      << ", which is no tessera::Error: " << e.what() << "\n";
            return 1;
        } catch (...) {
            std::cerr << "onnx_loader_fuzz: " << current_mutant
                      << " threw something that is no std::exception\n";
            return 1;
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "onnx_loader_fuzz: " << tried << " mutants of " << seeds.size() << " seeds in " << seconds
              << " s:";
    for (int o = 0; o < Outcomes; o++) std::cout << (o ? ", " : " ") << counts[o] << " " << outcome_names[o];
    std::cout << "\n";
    return counts[Internal] == 0 ? 0 : 1;
}
