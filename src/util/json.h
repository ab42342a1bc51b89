#pragma once
// A small JSON reader and the escaping a writer needs: enough for the tuning records, one object
// per line. Numbers are doubles; objects keep their keys sorted.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::json {

struct Value {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Value> array;
    std::map<std::string, Value> object;

    bool is(Kind k) const { return kind == k; }
    // The member named key, or nullptr where this is not an object or has no such member.
    const Value* find(const std::string& key) const;
};

// The value the whole text holds, or nullopt where it is not one JSON value (with `error`, when
// given, saying what is wrong and where).
std::optional<Value> parse(const std::string& text, std::string* error = nullptr);

// The text as a JSON string literal, quotes included.
std::string quote(const std::string& text);

// The value written as JSON, its objects' keys sorted: equal values give equal text.
std::string text(const Value& value);

}  // namespace tessera::json
