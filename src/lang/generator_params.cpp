// GeneratorParams: values from text and back, and the messages when text is not a value.

#include <charconv>
#include <cmath>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "tessera/generator.h"

namespace tessera::lang {
namespace {

const std::vector<std::pair<std::string, Type>>& type_table() {
    static const std::vector<std::pair<std::string, Type>> table = {
        {"bool", Bool()},     {"int8", Int(8)},       {"int16", Int(16)},     {"int32", Int(32)},
        {"int64", Int(64)},   {"uint8", UInt(8)},     {"uint16", UInt(16)},   {"uint32", UInt(32)},
        {"uint64", UInt(64)}, {"float16", Float(16)}, {"float32", Float(32)}, {"float64", Float(64)},
    };
    return table;
}

// The message of a CompileError without its "Error: " prefix, to quote inside another.
std::string without_prefix(const std::string& message) {
    const std::string prefix = "Error: ";
    return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
}

template <typename Number>
ParseResult parse_whole(const std::string& text, Number* value) {
    const char* begin = text.data();
    const char* end = begin + text.size();
    if (begin != end && *begin == '+') begin++;
    if (begin == end || *begin == ' ') return ParseResult::bad;
    auto [ptr, ec] = std::from_chars(begin, end, *value);
    if (ptr != end) return ParseResult::bad;
    if (ec == std::errc::result_out_of_range) return ParseResult::out_of_range;
    return ec == std::errc() ? ParseResult::ok : ParseResult::bad;
}

}  // namespace

bool parse_generator_bool(const std::string& text, bool* value) {
    if (text == "true") {
        *value = true;
    } else if (text == "false") {
        *value = false;
    } else {
        return false;
    }
    return true;
}

ParseResult parse_generator_number(const std::string& text, int64_t* value) {
    return parse_whole(text, value);
}

ParseResult parse_generator_number(const std::string& text, uint64_t* value) {
    // A negative number is a number, just not one an unsigned parameter can hold.
    if (!text.empty() && text[0] == '-') {
        int64_t negative = -1;
        ParseResult r = parse_whole(text, &negative);
        if (r == ParseResult::bad) return r;
        if (r == ParseResult::ok && negative == 0) {
            *value = 0;
            return ParseResult::ok;
        }
        return ParseResult::out_of_range;
    }
    return parse_whole(text, value);
}

ParseResult parse_generator_number(const std::string& text, double* value) {
    ParseResult r = parse_whole(text, value);
    if (r == ParseResult::ok && !std::isfinite(*value)) return ParseResult::bad;
    return r;
}

bool parse_generator_type(const std::string& text, Type* value) {
    for (const auto& [name, type] : type_table()) {
        if (name == text) {
            *value = type;
            return true;
        }
    }
    return false;
}

const std::string& generator_type_names() {
    static const std::string names = [] {
        std::string s;
        for (const auto& entry : type_table()) s += (s.empty() ? "" : ", ") + entry.first;
        return s;
    }();
    return names;
}

Target parse_generator_target(const std::string& param_name, const std::string& text) {
    try {
        return Target(text);
    } catch (const CompileError& e) {
        throw CompileError("Error: GeneratorParam '" + param_name + "': \"" + text +
                           "\" is not a target: " + without_prefix(e.what()));
    }
}

std::string generator_value_text(bool v) { return v ? "true" : "false"; }
std::string generator_value_text(int64_t v) { return std::to_string(v); }
std::string generator_value_text(uint64_t v) { return std::to_string(v); }

// The shortest text that reads back as the same value.
std::string generator_value_text(double v) {
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
    return std::string(buffer, end);
}
std::string generator_value_text(float v) {
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
    return std::string(buffer, end);
}

std::string generator_value_text(const Type& v) {
    for (const auto& [name, type] : type_table())
        if (type == v) return name;
    return type_name(v);
}

std::string generator_value_text(const Target& v) { return v.to_string(); }

}  // namespace tessera::lang
