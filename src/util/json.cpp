#include "util/json.h"

#include <cstdio>
#include <cstdlib>

namespace tessera::json {
namespace {

class Parser {
public:
    explicit Parser(const std::string& text) : text_(text) {}

    std::optional<Value> document() {
        std::optional<Value> v = value(0);
        skip_space();
        if (v && pos_ != text_.size()) return fail("text after the value");
        return v;
    }

    std::string error;

private:
    // Deeper nesting than any record has: a bound, so that hostile input cannot exhaust the stack.
    static constexpr int max_depth = 64;

    std::optional<Value> fail(const std::string& what) {
        if (error.empty()) error = what + " at offset " + std::to_string(pos_);
        return std::nullopt;
    }

    void skip_space() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            pos_++;
    }

    bool take(char c) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == c) {
            pos_++;
            return true;
        }
        return false;
    }

    bool take_word(const char* word) {
        const std::string w(word);
        if (text_.compare(pos_, w.size(), w) != 0) return false;
        pos_ += w.size();
        return true;
    }

    std::optional<Value> value(int depth) {
        if (depth > max_depth) return fail("nesting too deep");
        skip_space();
        if (pos_ >= text_.size()) return fail("a value expected");
        Value v;
        const char c = text_[pos_];
        if (c == '{') return object(depth);
        if (c == '[') return array(depth);
        if (c == '"') {
            auto s = string();
            if (!s) return std::nullopt;
            v.kind = Value::Kind::String;
            v.string = std::move(*s);
            return v;
        }
        if (take_word("true")) {
            v.kind = Value::Kind::Bool;
            v.boolean = true;
            return v;
        }
        if (take_word("false")) {
            v.kind = Value::Kind::Bool;
            return v;
        }
        if (take_word("null")) return v;
        return number();
    }

    std::optional<Value> number() {
        const char* start = text_.c_str() + pos_;
        char* end = nullptr;
        const double d = std::strtod(start, &end);
        if (end == start) return fail("a value expected");
        pos_ += size_t(end - start);
        Value v;
        v.kind = Value::Kind::Number;
        v.number = d;
        return v;
    }

    std::optional<std::string> string() {
        pos_++;  // the opening quote
        std::string out;
        while (pos_ < text_.size() && text_[pos_] != '"') {
            char c = text_[pos_++];
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= text_.size()) break;
            c = text_[pos_++];
            switch (c) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    if (pos_ + 4 > text_.size()) return fail_string("a short \\u escape");
                    const unsigned code = unsigned(std::strtoul(text_.substr(pos_, 4).c_str(), nullptr, 16));
                    pos_ += 4;
                    append_utf8(out, code);
                    break;
                }
                default: out += c;
            }
        }
        if (pos_ >= text_.size()) return fail_string("an unterminated string");
        pos_++;
        return out;
    }

    std::optional<std::string> fail_string(const std::string& what) {
        fail(what);
        return std::nullopt;
    }

    static void append_utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += char(code);
        } else if (code < 0x800) {
            out += char(0xC0 | (code >> 6));
            out += char(0x80 | (code & 0x3F));
        } else {
            out += char(0xE0 | (code >> 12));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        }
    }

    std::optional<Value> array(int depth) {
        pos_++;
        Value v;
        v.kind = Value::Kind::Array;
        if (take(']')) return v;
        do {
            auto element = value(depth + 1);
            if (!element) return std::nullopt;
            v.array.push_back(std::move(*element));
        } while (take(','));
        if (!take(']')) return fail("',' or ']' expected");
        return v;
    }

    std::optional<Value> object(int depth) {
        pos_++;
        Value v;
        v.kind = Value::Kind::Object;
        if (take('}')) return v;
        do {
            skip_space();
            if (pos_ >= text_.size() || text_[pos_] != '"') return fail("a member name expected");
            auto key = string();
            if (!key) return std::nullopt;
            if (!take(':')) return fail("':' expected");
            auto member = value(depth + 1);
            if (!member) return std::nullopt;
            v.object[*key] = std::move(*member);
        } while (take(','));
        if (!take('}')) return fail("',' or '}' expected");
        return v;
    }

    const std::string& text_;
    size_t pos_ = 0;
};

}  // namespace

const Value* Value::find(const std::string& key) const {
    if (kind != Kind::Object) return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
}

std::optional<Value> parse(const std::string& text, std::string* error) {
    Parser p(text);
    std::optional<Value> v = p.document();
    if (!v && error) *error = p.error;
    return v;
}

std::string quote(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escape[8];
                    std::snprintf(escape, sizeof escape, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
                    out += escape;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

std::string text(const Value& value) {
    switch (value.kind) {
        case Value::Kind::Null: return "null";
        case Value::Kind::Bool: return value.boolean ? "true" : "false";
        case Value::Kind::Number: {
            char digits[32];
            std::snprintf(digits, sizeof digits, "%.17g", value.number);
            return digits;
        }
        case Value::Kind::String: return quote(value.string);
        case Value::Kind::Array: {
            std::string out = "[";
            for (size_t i = 0; i < value.array.size(); i++) out += (i ? "," : "") + text(value.array[i]);
            return out + "]";
        }
        case Value::Kind::Object: {
            std::string out = "{";
            for (const auto& [key, member] : value.object)
                out += (out.size() > 1 ? "," : "") + quote(key) + ":" + text(member);
            return out + "}";
        }
    }
    return "null";
}

}  // namespace tessera::json
