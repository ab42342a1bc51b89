#pragma once
// Runs hand-built loop nests through the JIT on 1-D buffers and scalar arguments, so that tests of
// lowering passes can compare a transformed loop nest with the original, and both with plain C++.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "targets/jit.h"
#include "tessera/runtime.h"
#include "tessera/target.h"

namespace tessera::test {

// The final contents of a run's buffers, by name.
class RunResult {
public:
    struct Contents {
        Type type;
        std::vector<uint8_t> bytes;
    };
    std::map<std::string, Contents> buffers;
    int32_t code = 0;

    template <typename T>
    T at(const std::string& buffer, int i) const {
        const Contents& c = buffers.at(buffer);
        using Storage = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
        REQUIRE(size_t(i + 1) * sizeof(Storage) <= c.bytes.size());
        Storage v;
        std::memcpy(&v, c.bytes.data() + size_t(i) * sizeof(Storage), sizeof(Storage));
        return T(v);
    }
    int size(const std::string& buffer) const {
        const Contents& c = buffers.at(buffer);
        return int(c.bytes.size()) / c.type.bytes();
    }
};

// Checks that two runs left every buffer with the same bits, naming the first element that differs.
inline void check_same_contents(const RunResult& expected, const RunResult& actual, const std::string& what) {
    CHECK_MESSAGE(expected.code == actual.code, what << ": return codes differ");
    for (const auto& [name, e] : expected.buffers) {
        const RunResult::Contents& a = actual.buffers.at(name);
        const int bytes = e.type.bytes();
        for (size_t i = 0; i < e.bytes.size(); i += bytes) {
            if (std::memcmp(e.bytes.data() + i, a.bytes.data() + i, bytes) != 0) {
                uint64_t ev = 0, av = 0;
                std::memcpy(&ev, e.bytes.data() + i, bytes);
                std::memcpy(&av, a.bytes.data() + i, bytes);
                FAIL_CHECK(what << ": " << name << "[" << i / bytes << "] is 0x" << std::hex << av
                                << ", expected 0x" << ev << std::dec);
                break;
            }
        }
    }
}

// The arguments of a loop nest: 1-D buffers with min 0 and scalars, in the order added.
class LoopNestRunner {
public:
    template <typename T>
    void buffer(const std::string& name, const std::vector<T>& values) {
        using Storage = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
        Argument a{name, true, type_of<T>(), {}};
        for (T v : values) {
            Storage s = Storage(v);
            const uint8_t* p = reinterpret_cast<const uint8_t*>(&s);
            a.bytes.insert(a.bytes.end(), p, p + sizeof(Storage));
        }
        arguments_.push_back(std::move(a));
    }
    template <typename T>
    void zeros(const std::string& name, int n) {
        buffer(name, std::vector<T>(size_t(n), T{}));
    }
    template <typename T>
    void scalar(const std::string& name, T value) {
        Argument a{name, false, type_of<T>(), std::vector<uint8_t>(8, 0)};
        std::memcpy(a.bytes.data(), &value, sizeof(T));
        arguments_.push_back(std::move(a));
    }

    // Compiles body and runs it on fresh copies of the arguments' initial contents.
    RunResult run(const std::string& function_name, const ir::Stmt& body) const {
        std::vector<lowering::LoweredArgument> lowered;
        for (const Argument& a : arguments_)
            lowered.push_back({a.name, a.is_buffer, a.type, a.is_buffer ? 1 : 0});
        std::shared_ptr<targets::JITModule> m =
            targets::jit_compile({function_name, lowered, body}, tessera::get_host_target());

        RunResult result;
        std::vector<std::vector<uint8_t>> memory;
        std::vector<tessera_dimension_t> dims(arguments_.size());
        std::vector<tessera_buffer_t> raw(arguments_.size());
        std::vector<void*> args;
        memory.reserve(arguments_.size());
        for (size_t i = 0; i < arguments_.size(); i++) {
            const Argument& a = arguments_[i];
            // A few bytes of slack, so that a wrong access shows as a wrong value, not a crash.
            memory.push_back(a.bytes);
            memory.back().resize(a.bytes.size() + 64);
            if (!a.is_buffer) {
                args.push_back(memory.back().data());
                continue;
            }
            const int n = int(a.bytes.size()) / a.type.bytes();
            dims[i] = {0, n, 1, 0};
            raw[i].type = {uint8_t(a.type.code()), uint8_t(a.type.bits()), uint16_t(a.type.lanes())};
            raw[i].dimensions = 1;
            raw[i].dim = &dims[i];
            raw[i].host = memory.back().data();
            args.push_back(&raw[i]);
        }
        result.code = m->call(args.data());
        for (size_t i = 0; i < arguments_.size(); i++) {
            const Argument& a = arguments_[i];
            if (!a.is_buffer) continue;
            std::vector<uint8_t> bytes(memory[i].begin(), memory[i].begin() + a.bytes.size());
            result.buffers[a.name] = {a.type, std::move(bytes)};
        }
        return result;
    }

private:
    struct Argument {
        std::string name;
        bool is_buffer;
        Type type;
        std::vector<uint8_t> bytes;
    };
    std::vector<Argument> arguments_;
};

// The statement with every loop serial: what a vectorized or unrolled form must match.
inline ir::Stmt all_loops_serial(const ir::Stmt& s) {
    class Serialize : public ir::Mutator {
        using ir::Mutator::visit;
        ir::Stmt visit(const ir::For* op) override {
            ir::Stmt body = mutate(op->body);
            return ir::For::make(op->name, op->min, op->extent, ir::ForKind::Serial, body);
        }
    };
    return Serialize().mutate(s);
}

// What a statement contains, for checking what a pass made of it.
struct Census : ir::Visitor {
    std::map<std::string, ir::ForKind> loops;  // by name
    int ramps = 0, vector_loads = 0, vector_stores = 0, dense_loads = 0, dense_stores = 0;
    int all_lanes_tests = 0, predicated_loads = 0, predicated_stores = 0;

    static bool dense(const Expr& index) {
        const ir::Ramp* r = index.as<ir::Ramp>();
        const ir::IntImm* stride = r ? r->stride.as<ir::IntImm>() : nullptr;
        return stride && stride->value == 1;
    }
    using ir::Visitor::visit;
    void visit(const ir::For* op) override {
        loops[op->name] = op->for_kind;
        ir::Visitor::visit(op);
    }
    void visit(const ir::Ramp* op) override {
        ramps++;
        ir::Visitor::visit(op);
    }
    void visit(const ir::Load* op) override {
        if (op->type.is_vector()) vector_loads++;
        if (dense(op->index)) dense_loads++;
        if (op->predicate.defined()) predicated_loads++;
        ir::Visitor::visit(op);
    }
    void visit(const ir::Store* op) override {
        if (op->value.type().is_vector()) vector_stores++;
        if (dense(op->index)) dense_stores++;
        if (op->predicate.defined()) predicated_stores++;
        ir::Visitor::visit(op);
    }
    void visit(const ir::Call* op) override {
        if (op->intrinsic == ir::Intrinsic::AllLanesTrue) all_lanes_tests++;
        ir::Visitor::visit(op);
    }
};

inline Census census(const ir::Stmt& s) {
    Census c;
    c.include(s);
    return c;
}

}  // namespace tessera::test
