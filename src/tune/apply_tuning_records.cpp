// Pipeline::apply_tuning_records: the fastest recorded schedule for this pipeline and target.

#include <iostream>

#include "schedule/auto/pipeline_analysis.h"
#include "tessera/pipeline.h"
#include "tune/pipeline_signature.h"
#include "tune/plan_json.h"
#include "tune/tuning_records.h"
#include "util/error_stream.h"

namespace tessera {

bool Pipeline::apply_tuning_records(const std::string& records_file, const Target& requested) {
    TESSERA_USER_CHECK(defined()) << "apply_tuning_records on an empty Pipeline.";
    std::vector<std::shared_ptr<lang::FunctionContents>> outs;
    for (const Func& f : outputs()) outs.push_back(f.function());
    const Target target = requested.defined() ? requested : get_jit_target_from_environment();
    const std::string signature = tune::signature_of(outs);
    // From the fastest down: a record that does not fit this pipeline gives way to the next.
    std::vector<tune::TuningRecord> records = tune::read_records(records_file);
    std::erase_if(records, [&](const tune::TuningRecord& r) {
        return !r.ok() || r.signature != signature || r.target != target.to_string();
    });
    std::stable_sort(
        records.begin(), records.end(),
        [](const tune::TuningRecord& a, const tune::TuningRecord& b) { return a.median_ms < b.median_ms; });
    const auto funcs = autoschedule::pipeline_funcs(outs);
    for (const tune::TuningRecord& r : records) {
        std::string why;
        auto plan = tune::plan_from_json(r.schedule, funcs, &why);
        if (plan) {
            const autoschedule::ScheduleSnapshot saved(*plan);
            try {
                autoschedule::apply_plan(*plan);
                return true;
            } catch (const CompileError& e) {
                saved.restore();
                why = e.what();
            }
        }
        std::cerr << "tessera: warning: tuning records " << records_file << ", trial " << r.trial
                  << ": its schedule does not apply to this pipeline (" << why << "); it is ignored.\n";
    }
    return false;
}

}  // namespace tessera
