#include "tune/measurement.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "tessera/error.h"
#include "tessera/func.h"
#include "tessera/pipeline.h"

namespace tessera::tune {

const char* outcome_name(Outcome o) {
    switch (o) {
        case Outcome::Ok: return "ok";
        case Outcome::CompileError: return "compile_error";
        case Outcome::RunError: return "run_error";
        case Outcome::Wrong: return "wrong";
        case Outcome::Crashed: return "crashed";
        case Outcome::TimedOut: return "timeout";
    }
    return "crashed";
}

struct CompiledCandidate::State {
    Pipeline pipeline;
    std::vector<Type> types;
};

std::optional<CompiledCandidate> CompiledCandidate::compile(const MeasureSetup& setup, const Candidate& c,
                                                            std::string* why) {
    try {
        autoschedule::apply_plan(c.plan);
        std::vector<Func> outputs;
        for (const auto& f : setup.outputs) outputs.emplace_back(f);
        CompiledCandidate compiled;
        compiled.state_ = std::make_shared<State>();
        compiled.state_->pipeline = Pipeline(outputs);
        compiled.state_->pipeline.compile_jit(setup.target);
        for (const auto& f : setup.outputs)
            compiled.state_->types.insert(compiled.state_->types.end(), f->output_types.begin(),
                                          f->output_types.end());
        return compiled;
    } catch (const std::exception& e) {
        *why = e.what();
        return std::nullopt;
    }
}

namespace {

std::vector<Buffer<>> output_buffers(const MeasureSetup& setup, const std::vector<Type>& types) {
    std::vector<Buffer<>> buffers;
    size_t t = 0;
    for (size_t o = 0; o < setup.outputs.size(); o++) {
        std::vector<int> sizes, mins;
        for (const auto& [min, extent] : setup.output_regions[o]) {
            sizes.push_back(extent);
            mins.push_back(min);
        }
        for (size_t v = 0; v < setup.outputs[o]->output_types.size(); v++) {
            Buffer<> b(types[t++], sizes);
            b.set_min(mins);
            buffers.push_back(b);
        }
    }
    return buffers;
}

std::vector<std::vector<uint8_t>> bytes_of(const std::vector<Buffer<>>& buffers) {
    std::vector<std::vector<uint8_t>> out;
    for (const Buffer<>& b : buffers) {
        const auto* begin = reinterpret_cast<const uint8_t*>(b.data());
        out.emplace_back(begin, begin + b.size_in_bytes());
    }
    return out;
}

double value_at(const std::vector<uint8_t>& bytes, size_t i, Type t) {
    if (t.bits() == 32) {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        return f;
    }
    double d;
    std::memcpy(&d, bytes.data() + 8 * i, 8);
    return d;
}

}  // namespace

bool outputs_agree(const std::vector<std::vector<uint8_t>>& a, const std::vector<std::vector<uint8_t>>& b,
                   const std::vector<Type>& types, std::string* why) {
    if (a.size() != b.size()) {
        *why = "a different number of outputs";
        return false;
    }
    for (size_t o = 0; o < a.size(); o++) {
        if (a[o].size() != b[o].size()) {
            *why = "output " + std::to_string(o) + " has a different size";
            return false;
        }
        const Type t = types[o];
        if (!t.is_float() || (t.bits() != 32 && t.bits() != 64)) {
            if (a[o] != b[o]) {
                *why = "output " + std::to_string(o) + " differs from the reference";
                return false;
            }
            continue;
        }
        const size_t n = a[o].size() / size_t(t.bytes());
        for (size_t i = 0; i < n; i++) {
            const double x = value_at(a[o], i, t), y = value_at(b[o], i, t);
            if (std::isnan(x) && std::isnan(y)) continue;
            if (!(std::fabs(x - y) <= 1e-4 * std::max({1.0, std::fabs(x), std::fabs(y)}))) {
                *why = "output " + std::to_string(o) + " element " + std::to_string(i) + " is " +
                       std::to_string(x) + ", the reference " + std::to_string(y);
                return false;
            }
        }
    }
    return true;
}

Measurement CompiledCandidate::run(const MeasureSetup& setup,
                                   std::vector<std::vector<uint8_t>>* output) const {
    Measurement m;
    try {
        std::vector<Buffer<>> buffers = output_buffers(setup, state_->types);
        state_->pipeline.realize(Realization(buffers), setup.target);
        auto bytes = bytes_of(buffers);
        if (!setup.reference.empty() && !outputs_agree(bytes, setup.reference, state_->types, &m.message)) {
            m.outcome = Outcome::Wrong;
            return m;
        }
        if (output) *output = std::move(bytes);
        for (int r = 0; r < std::max(setup.repetitions, 1); r++) {
            const auto start = std::chrono::steady_clock::now();
            state_->pipeline.realize(Realization(buffers), setup.target);
            m.times_ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
    } catch (const std::exception& e) {
        m.outcome = Outcome::RunError;
        m.message = e.what();
        return m;
    }
    std::vector<double> sorted = m.times_ms;
    std::sort(sorted.begin(), sorted.end());
    m.median_ms = sorted[sorted.size() / 2];
    m.outcome = Outcome::Ok;
    return m;
}

}  // namespace tessera::tune
