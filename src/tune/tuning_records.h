#pragma once
// The tuning records file: one JSON object per line, appended as each candidate is measured, so an
// interrupted search loses nothing and a later one resumes from it:
//   {"signature":"…","target":"…","trial":3,"status":"ok","median_ms":1.25,"times_ms":[…],
//    "schedule":[…plan…]}
// and "remeasured":true on a second measurement of a trial's schedule.
// Lines that cannot be read (a truncated last line, a hand edit) are passed over with a warning.

#include <optional>
#include <string>
#include <vector>

#include "tessera/pipeline.h"
#include "util/json.h"

namespace tessera::tune {

struct TuningRecord {
    std::string signature;
    std::string target;
    int trial = 0;
    std::string status;  // "ok", or why the candidate failed: "compile_error", "crashed", ...
    double median_ms = 0;
    std::vector<double> times_ms;
    json::Value schedule;  // the plan (plan_json.h)
    std::string schedule_json;
    // A second measurement of a schedule already recorded (autotune measures its fastest few
    // again before it chooses), not a trial of its own.
    bool remeasured = false;

    bool ok() const { return status == "ok"; }
};

// The record as one line of JSON, without the newline.
std::string record_line(const TuningRecord& r);

// Every record the file holds that can be read; a warning on stderr for each line that cannot.
// A missing file holds none.
std::vector<TuningRecord> read_records(const std::string& path);

// Appends the record to the file (created if missing).
void append_record(const std::string& path, const TuningRecord& r);

// The successful records of the signature and target, one per schedule, fastest first. A schedule
// measured more than once is timed by the median of all its runs together, so that one lucky
// measurement does not decide; one that failed when measured again is left out.
std::vector<TuningRecord> ranked_schedules(const std::vector<TuningRecord>& records,
                                           const std::string& signature, const std::string& target);

// The schedule of a record that measured the schedule the pipeline's own code gives it (the graph
// layer's operators'), the baseline that tuned schedules must beat: "schedule":"operator".
constexpr const char* operator_schedule = "operator";

// Applies the fastest record in `records` that fits the pipeline and the target; whether one did.
// Where that is an operator_schedule record, nothing is applied (false): the pipeline's own
// schedule is the fastest known. Records that fit but do not apply are passed over with a warning
// naming `source`.
bool apply_records(Pipeline& pipeline, const std::vector<TuningRecord>& records, const Target& target,
                   const std::string& source);

}  // namespace tessera::tune
