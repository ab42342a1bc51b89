// Pipeline::apply_tuning_records: the fastest recorded schedule for this pipeline and target.

#include <algorithm>
#include <iostream>

#include "schedule/auto/pipeline_analysis.h"
#include "tessera/autotune.h"
#include "tessera/pipeline.h"
#include "tune/pipeline_signature.h"
#include "tune/plan_json.h"
#include "tune/tuning_records.h"
#include "util/error_stream.h"

namespace tessera {

bool tune::apply_records(Pipeline& pipeline, const std::vector<TuningRecord>& all, const Target& target,
                         const std::string& source) {
    const auto outs = autoschedule::output_functions(pipeline);
    const std::string signature = signature_of(outs);
    // From the fastest down: a record that does not fit this pipeline gives way to the next.
    const std::vector<TuningRecord> records = ranked_schedules(all, signature, target.to_string());
    const auto funcs = autoschedule::pipeline_funcs(outs);
    for (const TuningRecord& r : records) {
        if (r.schedule.is(json::Value::Kind::String) && r.schedule.string == operator_schedule) return false;
        std::string why;
        auto plan = plan_from_json(r.schedule, funcs, &why);
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
        std::cerr << "tessera: warning: tuning records " << source << ", trial " << r.trial
                  << ": its schedule does not apply to this pipeline (" << why << "); it is ignored.\n";
    }
    return false;
}

bool Pipeline::apply_tuning_records(const std::string& records_file, const Target& requested) {
    TESSERA_USER_CHECK(defined()) << "apply_tuning_records on an empty Pipeline.";
    const Target target = requested.defined() ? requested : get_jit_target_from_environment();
    const std::vector<tune::TuningRecord> records = tune::read_records(records_file);
    if (tune::apply_records(*this, records, target, records_file)) return true;
    const size_t successful =
        std::count_if(records.begin(), records.end(), [](const tune::TuningRecord& r) { return r.ok(); });
    if (successful > 0) {
        std::cerr << "tessera: warning: tuning records " << records_file << ": none of its " << successful
                  << " successful records is for this pipeline (signature " << pipeline_signature(*this)
                  << ") on " << target.to_string()
                  << "; the pipeline keeps its schedule. Tune it (autotune) for this target.\n";
    }
    return false;
}

}  // namespace tessera
