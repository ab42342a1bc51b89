// Pipeline::auto_schedule and its registry of automatic schedulers; MachineParams.

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "schedule/auto/image_reads.h"
#include "schedule/auto/pipeline_analysis.h"
#include "schedule/auto/schedule_plan.h"
#include "schedule/auto/tessera_autoscheduler.h"
#include "tessera/pipeline.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

void tessera_autoscheduler(const Pipeline& p, const Target& target, const MachineParams& params,
                           AutoSchedulerResults* results) {
    const autoschedule::SchedulePlan plan =
        autoschedule::tessera_autoschedule(autoschedule::output_functions(p), target, params);
    std::ostringstream source;
    source
        << "// The Tessera autoscheduler's schedule for " << target.to_string() << ", MachineParams("
        << params.to_string() << ").\n"
        << "// 'pipeline' is the Pipeline it was made for; paste this in place of the auto_schedule call.\n"
        << "{\n";
    std::istringstream lines(autoschedule::plan_source(plan));
    for (std::string line; std::getline(lines, line);) source << "    " << line << "\n";
    source << "}\n";
    results->schedule_source = source.str();
}

struct Registry {
    std::mutex mutex;
    std::map<std::string, Pipeline::AutoSchedulerFn> schedulers{{"Tessera", tessera_autoscheduler}};
    std::string default_name = "Tessera";
};

Registry& registry() {
    static Registry r;
    return r;
}

// The last-level cache of this machine, from the kernel's description of the CPU's caches.
uint64_t host_last_level_cache() {
    uint64_t largest = 0;
    for (int index = 0; index < 8; index++) {
        std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
        std::string text;
        if (!(in >> text) || text.empty()) continue;
        uint64_t size = std::strtoull(text.c_str(), nullptr, 10);
        if (text.back() == 'K') size *= 1024;
        if (text.back() == 'M') size *= 1024 * 1024;
        largest = std::max(largest, size);
    }
    return largest ? largest : 16 * 1024 * 1024;
}

}  // namespace

MachineParams::MachineParams(const std::string& text) {
    std::istringstream in(text);
    char comma1 = 0, comma2 = 0;
    TESSERA_USER_CHECK((in >> parallelism >> comma1 >> last_level_cache_size >> comma2 >> balance) &&
                       comma1 == ',' && comma2 == ',' && parallelism > 0 && balance > 0)
        << "MachineParams(\"" << text
        << "\"): expected \"parallelism,last_level_cache_size,balance\", such as \"16,16777216,40\".";
}

MachineParams MachineParams::generic() { return MachineParams(16, 16 * 1024 * 1024, 40); }

MachineParams MachineParams::host() {
    return MachineParams(int(std::max(1u, std::thread::hardware_concurrency())), host_last_level_cache(), 40);
}

std::string MachineParams::to_string() const {
    std::ostringstream out;
    out << parallelism << "," << last_level_cache_size << "," << balance;
    return out.str();
}

Func Pipeline::get_func(size_t index) const {
    const auto funcs = autoschedule::pipeline_funcs(autoschedule::output_functions(*this));
    TESSERA_USER_CHECK(index < funcs.size())
        << "Pipeline::get_func(" << index << "): the pipeline has " << funcs.size() << " Funcs (indices 0 to "
        << funcs.size() - 1 << ", producers first).";
    return Func(funcs[index].second);
}

ImageParam Pipeline::get_image_param(const std::string& name) const {
    for (const auto& [func_name, f] : autoschedule::pipeline_funcs(autoschedule::output_functions(*this)))
        for (const ir::Call* c : autoschedule::image_reads(*f, name))
            if (c->parameter()) return ImageParam(c->parameter());
    TESSERA_USER_ERROR << "Pipeline::get_image_param(\"" << name
                       << "\"): no Func of the pipeline reads an ImageParam "
                       << "named " << name << ". Pass the name given to the ImageParam's constructor.";
    return ImageParam();
}

AutoSchedulerResults Pipeline::auto_schedule(const std::string& name, const Target& requested,
                                             const MachineParams& params) {
    TESSERA_USER_CHECK(defined()) << "auto_schedule() of an empty Pipeline.";
    AutoSchedulerFn scheduler;
    {
        Registry& r = registry();
        std::lock_guard<std::mutex> lock(r.mutex);
        auto it = r.schedulers.find(name);
        if (it == r.schedulers.end()) {
            std::string known;
            for (const auto& [n, fn] : r.schedulers) known += (known.empty() ? "" : ", ") + n;
            TESSERA_USER_ERROR << "Pipeline::auto_schedule: there is no automatic scheduler named '" << name
                               << "'. The known ones: " << known << ".";
        }
        scheduler = it->second;
    }
    const Target target = requested.defined() ? requested : get_jit_target_from_environment();
    AutoSchedulerResults results;
    results.scheduler_name = name;
    results.target = target;
    results.machine_params_string = params.to_string();
    scheduler(*this, target, params, &results);
    return results;
}

AutoSchedulerResults Pipeline::auto_schedule(const Target& target, const MachineParams& params) {
    return auto_schedule(get_default_autoscheduler_name(), target, params);
}

void Pipeline::add_autoscheduler(const std::string& name, const AutoSchedulerFn& scheduler) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    TESSERA_USER_CHECK(!r.schedulers.count(name))
        << "Pipeline::add_autoscheduler: an automatic scheduler named '" << name << "' exists already.";
    r.schedulers[name] = scheduler;
}

void Pipeline::set_default_autoscheduler_name(const std::string& name) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.default_name = name;
}

std::string Pipeline::get_default_autoscheduler_name() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.default_name;
}

}  // namespace tessera
