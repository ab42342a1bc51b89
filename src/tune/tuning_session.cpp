#include "tune/tuning_session.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

#include "lang/parameter.h"
#include "schedule/auto/learned_cost_model.h"
#include "tune/pipeline_signature.h"
#include "util/error_stream.h"

namespace tessera::tune {
namespace {

// Values in [0, 1) for floats; small integers otherwise, so that products and sums stay in range.
void fill_random(Buffer<>& b, std::mt19937_64& rng) {
    const Type t = b.type();
    auto* bytes = reinterpret_cast<uint8_t*>(b.data());
    const size_t n = b.size_in_bytes() / size_t(t.bytes());
    std::uniform_real_distribution<double> unit(0, 1);
    for (size_t i = 0; i < n; i++) {
        const double v = unit(rng);
        uint8_t* at = bytes + i * size_t(t.bytes());
        if (t.is_float() && t.bits() == 32) {
            const float f = float(v);
            std::memcpy(at, &f, 4);
        } else if (t.is_float() && t.bits() == 64) {
            std::memcpy(at, &v, 8);
        } else {
            const uint64_t k = uint64_t(v * 16);
            std::memcpy(at, &k, size_t(t.bytes()));
        }
    }
}

}  // namespace

TuningInputs::TuningInputs(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                           const autoschedule::PipelineAnalysis& a, uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (const auto& [name, p] : tune::parameters_read(outputs)) {
        if (!p->is_buffer || p->is_output || p->buffer) continue;
        auto region = a.image_regions.find(name);
        TESSERA_USER_CHECK(region != a.image_regions.end() && int(region->second.size()) == p->dimensions)
            << "autotune: the input " << name
            << " has no buffer and no estimated region to make one of. Bind it (set()) or give it estimates "
               "(set_estimates).";
        std::vector<int> sizes, mins;
        for (const autoschedule::Span& s : region->second) {
            sizes.push_back(int(std::max<int64_t>(s.extent(), 1)));
            mins.push_back(int(s.min));
        }
        Buffer<> b(p->type, sizes, name);
        b.set_min(mins);
        fill_random(b, rng);
        lang::bind_buffer(*p, b.contents(), p->type);
        bound_.push_back(p);
    }
}

TuningInputs::~TuningInputs() {
    for (const auto& p : bound_) p->buffer = nullptr;
}

TuningSession::TuningSession(const Pipeline& pipeline, const TuneOptions& options)
    : outputs(autoschedule::output_functions(pipeline)),
      target(options.target.defined() ? options.target : get_jit_target_from_environment()),
      analysis(autoschedule::analyze_pipeline(outputs, {})),
      inputs(outputs, analysis, options.seed) {
    setup.outputs = outputs;
    setup.target = target;
    for (const auto& f : outputs) {
        auto stage = std::find_if(analysis.stages.begin(), analysis.stages.end(),
                                  [&](const autoschedule::StageNode& s) { return s.func == f; });
        std::vector<std::pair<int, int>> region;
        for (const autoschedule::Span& s : stage->region) region.emplace_back(int(s.min), int(s.extent()));
        setup.output_regions.push_back(region);
    }
    setup.repetitions = options.repetitions;
    setup.compile_timeout_seconds = options.compile_timeout_seconds;
    setup.run_timeout_seconds = options.run_timeout_seconds;
    setup.worker_hook = options.worker_hook;

    // What the cost model sees of a point: the features of its loop nest at the estimated sizes.
    machine.cores = options.machine_params.parallelism;
    machine.vector_lanes = target.natural_vector_size(Float(32));
    machine.cache_bytes_per_core = double(options.machine_params.last_level_cache_size) /
                                   std::max(options.machine_params.parallelism, 1);
    std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> regions;
    for (const autoschedule::StageNode& s : analysis.stages)
        if (s.is_output)
            for (const std::string& name : std::set<std::string>{s.name, s.func->name})
                for (const autoschedule::Span& span : s.region)
                    regions[name].emplace_back(span.min, span.extent());
    for (const auto& [name, region] : analysis.image_regions)
        for (const autoschedule::Span& span : region) regions[name].emplace_back(span.min, span.extent());
    feature_values = autoschedule::buffer_field_values(regions);
}

}  // namespace tessera::tune
