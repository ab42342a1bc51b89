#pragma once
// GeneratorParam<T>: a build-time parameter of a generator (see tessera/generator.h), set by name
// from text, and read as its value.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "tessera/expr.h"
#include "tessera/operators.h"
#include "tessera/target.h"
#include "tessera/type.h"

namespace tessera {

class GeneratorBase;

namespace lang {

// The non-template half of GeneratorParam. It registers with the generator under construction
// (and throws CompileError when there is none, or when its name is not a C identifier or is
// taken), so that the generator can set it by name.
class GeneratorParamBase {
public:
    explicit GeneratorParamBase(const std::string& name);
    GeneratorParamBase(const GeneratorParamBase&) = delete;
    GeneratorParamBase& operator=(const GeneratorParamBase&) = delete;
    virtual ~GeneratorParamBase() = default;

    const std::string& name() const { return name_; }
    // Parses text as a value of the parameter's type and sets it. Throws CompileError naming the
    // parameter, the text and what was expected, or the allowed range.
    virtual void set_from_string(const std::string& text) = 0;
    // The current value as text that set_from_string() accepts.
    virtual std::string to_string() const = 0;
    // What values the parameter takes, for messages: "int32", "bool", "Target", "one of a, b".
    virtual std::string type_description() const = 0;

protected:
    [[noreturn]] void fail_parse(const std::string& text) const;
    [[noreturn]] void fail_range(const std::string& value, const std::string& range) const;
    // Throws once the generator has been built: its parameters no longer change anything.
    void check_settable() const;

private:
    std::string name_;
    const GeneratorBase* generator_;
};

// Text to value, for GeneratorParams: whole strings only; numbers are decimal, and floating-point
// ones finite.
enum class ParseResult { ok, bad, out_of_range };
bool parse_generator_bool(const std::string& text, bool* value);
ParseResult parse_generator_number(const std::string& text, int64_t* value);
ParseResult parse_generator_number(const std::string& text, uint64_t* value);
ParseResult parse_generator_number(const std::string& text, double* value);
// "bool", "int8" ... "uint64", "float16", "float32", "float64".
bool parse_generator_type(const std::string& text, Type* value);
const std::string& generator_type_names();
// Throws CompileError naming the parameter and the part of text that is not a target.
Target parse_generator_target(const std::string& param_name, const std::string& text);
std::string generator_value_text(bool v);
std::string generator_value_text(int64_t v);
std::string generator_value_text(uint64_t v);
std::string generator_value_text(double v);
std::string generator_value_text(float v);
std::string generator_value_text(const Type& v);
std::string generator_value_text(const Target& v);

template <typename T>
constexpr bool is_generator_number = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

template <typename T>
std::string generator_value_text_of(const T& v) {
    if constexpr (std::is_same_v<T, bool>)
        return generator_value_text(v);
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
        return generator_value_text(int64_t(v));
    else if constexpr (std::is_integral_v<T>)
        return generator_value_text(uint64_t(v));
    else if constexpr (std::is_same_v<T, float>)
        return generator_value_text(v);
    else if constexpr (std::is_floating_point_v<T>)
        return generator_value_text(double(v));
    else if constexpr (std::is_same_v<T, std::string>)
        return v;
    else
        return generator_value_text(v);
}

}  // namespace lang

// A build-time parameter of a generator, set from text by name (`radius=3` on the driver's command
// line, set_generator_param_values() in a program). T is bool, an integer or floating-point type,
// std::string, Type ("uint8", "float32"...), Target, or an enum with a map from names to values:
//     GeneratorParam<int> radius{"radius", 1, 1, 8};                  // default, min, max
//     GeneratorParam<Type> acc_type{"acc_type", UInt(32)};
//     GeneratorParam<Mode> mode{"mode", Mode::A, {{"a", Mode::A}, {"b", Mode::B}}};
// It reads as its value (operator T, value()); a number is also an Expr, and arithmetic with it
// is arithmetic with its value.
template <typename T>
class GeneratorParam : public lang::GeneratorParamBase {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string> ||
                      std::is_same_v<T, Type> || std::is_same_v<T, Target>,
                  "GeneratorParam<T>: T must be bool, a number, std::string, Type, Target or an enum");

public:
    GeneratorParam(const std::string& name, const T& value) requires(!std::is_enum_v<T>)
        : GeneratorParamBase(name) {
        set(value);
    }
    GeneratorParam(const std::string& name, const T& value, const T& min,
                   const T& max) requires(lang::is_generator_number<T>)
        : GeneratorParamBase(name), min_(min), max_(max) {
        set(value);
    }
    GeneratorParam(const std::string& name, const T& value,
                   const std::map<std::string, T>& names) requires(std::is_enum_v<T>)
        : GeneratorParamBase(name), names_(names) {
        set(value);
    }

    T value() const { return value_; }
    operator T() const { return value_; }
    // A number as a constant of its type.
    operator Expr() const requires(std::is_arithmetic_v<T>) {
        if constexpr (std::is_same_v<T, bool>)
            return make_const(Bool(), int64_t(value_));
        else if constexpr (std::is_integral_v<T>)
            return make_const(type_of<T>(), int64_t(value_));
        else
            return make_const(type_of<T>(), double(value_));
    }

    // Sets the value; a number outside [min, max] is an error that names the range.
    void set(const T& value) {
        check_settable();
        if constexpr (lang::is_generator_number<T>) {
            if ((min_ && value < *min_) || (max_ && value > *max_))
                fail_range(lang::generator_value_text_of(value),
                           "[" + lang::generator_value_text_of(*min_) + ", " +
                               lang::generator_value_text_of(*max_) + "]");
        } else if constexpr (std::is_enum_v<T>) {
            if (!names_.empty() && name_of(value) == nullptr)
                fail_range("value " + std::to_string(int64_t(value)), type_description());
        }
        value_ = value;
    }

    void set_from_string(const std::string& text) override { set(parse(text)); }
    std::string to_string() const override {
        if constexpr (std::is_enum_v<T>) {
            const std::string* n = name_of(value_);
            return n ? *n : std::to_string(int64_t(value_));
        } else {
            return lang::generator_value_text_of(value_);
        }
    }
    std::string type_description() const override {
        if constexpr (std::is_same_v<T, std::string>) {
            return "string";
        } else if constexpr (std::is_same_v<T, Type>) {
            return "Type (" + lang::generator_type_names() + ")";
        } else if constexpr (std::is_same_v<T, Target>) {
            return "Target";
        } else if constexpr (std::is_enum_v<T>) {
            std::string s = "one of ";
            for (auto it = names_.begin(); it != names_.end(); ++it)
                s += (it == names_.begin() ? "" : ", ") + it->first;
            return s;
        } else if constexpr (std::is_same_v<T, bool>) {
            return "bool (true or false)";
        } else {
            return type_name(type_of<T>());
        }
    }

private:
    T parse(const std::string& text) const {
        if constexpr (std::is_same_v<T, bool>) {
            bool v;
            if (!lang::parse_generator_bool(text, &v)) fail_parse(text);
            return v;
        } else if constexpr (std::is_integral_v<T>) {
            // Parsed in 64 bits, then checked against T's own range.
            using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
            Wide v;
            lang::ParseResult r = lang::parse_generator_number(text, &v);
            if (r == lang::ParseResult::bad) fail_parse(text);
            if (r == lang::ParseResult::out_of_range || v < Wide(std::numeric_limits<T>::min()) ||
                v > Wide(std::numeric_limits<T>::max()))
                fail_range(text, type_range());
            return T(v);
        } else if constexpr (std::is_floating_point_v<T>) {
            double v;
            lang::ParseResult r = lang::parse_generator_number(text, &v);
            if (r == lang::ParseResult::bad) fail_parse(text);
            if (r == lang::ParseResult::out_of_range || v < double(std::numeric_limits<T>::lowest()) ||
                v > double(std::numeric_limits<T>::max()))
                fail_range(text, type_range());
            return T(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
            return text;
        } else if constexpr (std::is_same_v<T, Type>) {
            Type v;
            if (!lang::parse_generator_type(text, &v)) fail_parse(text);
            return v;
        } else if constexpr (std::is_same_v<T, Target>) {
            return lang::parse_generator_target(name(), text);
        } else {
            auto it = names_.find(text);
            if (it == names_.end()) fail_parse(text);
            return it->second;
        }
    }
    std::string type_range() const {
        if constexpr (lang::is_generator_number<T>)
            return "the range of " + type_description() + ", [" +
                   lang::generator_value_text_of(std::numeric_limits<T>::lowest()) + ", " +
                   lang::generator_value_text_of(std::numeric_limits<T>::max()) + "]";
        else
            return type_description();
    }
    const std::string* name_of(const T& v) const {
        for (const auto& [n, value] : names_)
            if (value == v) return &n;
        return nullptr;
    }

    T value_{};
    std::optional<T> min_, max_;
    std::map<std::string, T> names_;
};

// Arithmetic and comparisons with a GeneratorParam are those of its value (these templates make
// `x + radius` mean `x + radius.value()` rather than leave a choice between two conversions).
#define TESSERA_GENERATOR_PARAM_BINARY_OP(op)                                                          \
    template <typename Other, typename T>                                                              \
    auto operator op(const Other& a, const GeneratorParam<T>& b)->decltype(a op(T) b) {                \
        return a op(T) b;                                                                              \
    }                                                                                                  \
    template <typename Other, typename T>                                                              \
    auto operator op(const GeneratorParam<T>& a, const Other& b)->decltype((T)a op b) {                \
        return (T)a op b;                                                                              \
    }                                                                                                  \
    template <typename T, typename U>                                                                  \
    auto operator op(const GeneratorParam<T>& a, const GeneratorParam<U>& b)->decltype((T)a op(U) b) { \
        return (T)a op(U) b;                                                                           \
    }
TESSERA_GENERATOR_PARAM_BINARY_OP(+)
TESSERA_GENERATOR_PARAM_BINARY_OP(-)
TESSERA_GENERATOR_PARAM_BINARY_OP(*)
TESSERA_GENERATOR_PARAM_BINARY_OP(/)
TESSERA_GENERATOR_PARAM_BINARY_OP(%)
TESSERA_GENERATOR_PARAM_BINARY_OP(<)
TESSERA_GENERATOR_PARAM_BINARY_OP(>)
TESSERA_GENERATOR_PARAM_BINARY_OP(<=)
TESSERA_GENERATOR_PARAM_BINARY_OP(>=)
TESSERA_GENERATOR_PARAM_BINARY_OP(==)
TESSERA_GENERATOR_PARAM_BINARY_OP(!=)
TESSERA_GENERATOR_PARAM_BINARY_OP(&&)
TESSERA_GENERATOR_PARAM_BINARY_OP(||)
TESSERA_GENERATOR_PARAM_BINARY_OP(&)
TESSERA_GENERATOR_PARAM_BINARY_OP(|)
TESSERA_GENERATOR_PARAM_BINARY_OP(^)
TESSERA_GENERATOR_PARAM_BINARY_OP(<<)
TESSERA_GENERATOR_PARAM_BINARY_OP(>>)
#undef TESSERA_GENERATOR_PARAM_BINARY_OP

template <typename T>
auto operator-(const GeneratorParam<T>& a) -> decltype(-(T)a) {
    return -(T)a;
}
template <typename T>
auto operator!(const GeneratorParam<T>& a) -> decltype(!(T)a) {
    return !(T)a;
}

namespace lang {
template <typename A, typename B>
auto generator_min(const A& a, const B& b) {
    using std::min;
    using tessera::min;
    return min(a, b);
}
template <typename A, typename B>
auto generator_max(const A& a, const B& b) {
    using std::max;
    using tessera::max;
    return max(a, b);
}
}  // namespace lang

template <typename Other, typename T>
auto min(const Other& a, const GeneratorParam<T>& b) -> decltype(lang::generator_min(a, (T)b)) {
    return lang::generator_min(a, (T)b);
}
template <typename Other, typename T>
auto min(const GeneratorParam<T>& a, const Other& b) -> decltype(lang::generator_min((T)a, b)) {
    return lang::generator_min((T)a, b);
}
template <typename Other, typename T>
auto max(const Other& a, const GeneratorParam<T>& b) -> decltype(lang::generator_max(a, (T)b)) {
    return lang::generator_max(a, (T)b);
}
template <typename Other, typename T>
auto max(const GeneratorParam<T>& a, const Other& b) -> decltype(lang::generator_max((T)a, b)) {
    return lang::generator_max((T)a, b);
}

}  // namespace tessera
