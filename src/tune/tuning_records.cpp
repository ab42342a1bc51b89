#include "tune/tuning_records.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "util/error_stream.h"

namespace tessera::tune {
namespace {

std::string number(double v) {
    std::ostringstream out;
    out.precision(9);
    out << (std::isfinite(v) ? v : 0.0);
    return out.str();
}

// The record a line holds, or nullopt with the reason.
std::optional<TuningRecord> parse_record(const std::string& line, std::string* why) {
    auto value = json::parse(line, why);
    if (!value) return std::nullopt;
    const json::Value* signature = value->find("signature");
    const json::Value* target = value->find("target");
    const json::Value* status = value->find("status");
    const json::Value* schedule = value->find("schedule");
    if (!signature || !signature->is(json::Value::Kind::String) || !target ||
        !target->is(json::Value::Kind::String) || !status || !status->is(json::Value::Kind::String) ||
        !schedule) {
        *why = "a record needs its signature, target, status and schedule";
        return std::nullopt;
    }
    TuningRecord r;
    r.signature = signature->string;
    r.target = target->string;
    r.status = status->string;
    r.schedule = *schedule;
    if (const json::Value* trial = value->find("trial"); trial && trial->is(json::Value::Kind::Number))
        r.trial = int(std::clamp(trial->number, -1.0, 1e9));
    if (const json::Value* times = value->find("times_ms"); times && times->is(json::Value::Kind::Array)) {
        for (const json::Value& t : times->array)
            if (t.is(json::Value::Kind::Number)) r.times_ms.push_back(t.number);
    }
    const json::Value* median = value->find("median_ms");
    if (r.ok() && (!median || !median->is(json::Value::Kind::Number) || !(median->number > 0))) {
        *why = "a successful record needs a positive median_ms";
        return std::nullopt;
    }
    if (median && median->is(json::Value::Kind::Number)) r.median_ms = median->number;
    const json::Value* remeasured = value->find("remeasured");
    r.remeasured = remeasured && remeasured->is(json::Value::Kind::Bool) && remeasured->boolean;
    return r;
}

// The median of times as a measurement takes it (the upper one), or fallback where there are none.
double median_of(std::vector<double> times, double fallback) {
    if (times.empty()) return fallback;
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// Whether the file is missing, empty, or ends with a newline: a run that was killed may have left
// half a line, which the next record must not be glued to.
bool ends_a_line(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in || in.tellg() <= 0) return true;
    in.seekg(-1, std::ios::end);
    char last = 0;
    in.get(last);
    return last == '\n';
}

}  // namespace

std::string record_line(const TuningRecord& r) {
    std::ostringstream out;
    out << "{\"signature\":" << json::quote(r.signature) << ",\"target\":" << json::quote(r.target)
        << ",\"trial\":" << r.trial << ",\"status\":" << json::quote(r.status)
        << ",\"median_ms\":" << number(r.median_ms) << ",\"times_ms\":[";
    for (size_t i = 0; i < r.times_ms.size(); i++) out << (i ? "," : "") << number(r.times_ms[i]);
    out << "]";
    if (r.remeasured) out << ",\"remeasured\":true";
    out << ",\"schedule\":" << (r.schedule_json.empty() ? "[]" : r.schedule_json) << "}";
    return out.str();
}

std::vector<TuningRecord> read_records(const std::string& path) {
    std::vector<TuningRecord> records;
    std::ifstream in(path);
    if (!in) return records;
    std::string line;
    for (int number = 1; std::getline(in, line); number++) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::string why;
        auto r = parse_record(line, &why);
        if (r) {
            r->schedule_json.clear();
            records.push_back(std::move(*r));
        } else {
            std::cerr << "tessera: warning: tuning records " << path << ", line " << number << ": " << why
                      << "; the line is ignored.\n";
        }
    }
    return records;
}

void append_record(const std::string& path, const TuningRecord& r) {
    const bool fresh_line = ends_a_line(path);
    std::ofstream out(path, std::ios::app);
    if (!fresh_line) out << "\n";
    TESSERA_USER_CHECK(out) << "autotune: cannot open the records file '" << path << "' to append to it.";
    out << record_line(r) << "\n";
    out.flush();
    TESSERA_USER_CHECK(out) << "autotune: cannot write to the records file '" << path << "'.";
}

std::vector<TuningRecord> ranked_schedules(const std::vector<TuningRecord>& records,
                                           const std::string& signature, const std::string& target) {
    // A schedule that failed when measured again is passed over, however it ran the first time.
    std::set<std::string> failed_again;
    for (const TuningRecord& r : records)
        if (r.remeasured && !r.ok() && r.signature == signature && r.target == target)
            failed_again.insert(json::text(r.schedule));
    std::vector<TuningRecord> ranked;
    std::map<std::string, size_t> index_of_schedule;
    for (const TuningRecord& r : records) {
        if (!r.ok() || r.signature != signature || r.target != target) continue;
        if (failed_again.count(json::text(r.schedule))) continue;
        auto [it, fresh] = index_of_schedule.emplace(json::text(r.schedule), ranked.size());
        if (fresh) {
            ranked.push_back(r);
            continue;
        }
        TuningRecord& pooled = ranked[it->second];
        pooled.times_ms.insert(pooled.times_ms.end(), r.times_ms.begin(), r.times_ms.end());
        pooled.median_ms = median_of(pooled.times_ms, pooled.median_ms);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const TuningRecord& a, const TuningRecord& b) { return a.median_ms < b.median_ms; });
    return ranked;
}

}  // namespace tessera::tune
