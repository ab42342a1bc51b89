#pragma once
// Schedules as plain data: where a Func is computed and stored. Checked in one place
// (schedule/validate_schedule.h) before lowering.

#include <string>

namespace tessera::schedule {

// Where in the loop nest of the pipeline a Func is computed (or stored).
struct LoopLevel {
    enum class Kind { Inherited, Inline, Root, At };
    Kind kind = Kind::Inherited;
    std::string func;  // for At: the consumer Func
    std::string var;   // for At: the consumer's loop variable

    static LoopLevel inlined() { return {Kind::Inline, "", ""}; }
    static LoopLevel root() { return {Kind::Root, "", ""}; }
    static LoopLevel at(std::string f, std::string v) { return {Kind::At, std::move(f), std::move(v)}; }
    bool is_inherited() const { return kind == Kind::Inherited; }
    bool is_inline() const { return kind == Kind::Inline; }
    bool is_root() const { return kind == Kind::Root; }
};

struct FuncSchedule {
    LoopLevel compute_level;  // Inherited: the default (inline if pure, root otherwise)
    LoopLevel store_level;    // Inherited: the same as compute_level
};

}  // namespace tessera::schedule
