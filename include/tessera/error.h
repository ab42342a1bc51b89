#pragma once
// The errors Tessera reports to its users.

#include <stdexcept>
#include <string>

namespace tessera {

// The base of every error Tessera throws (as Halide::Error is), so that one handler can catch all.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A mistake in a definition or a schedule, reported where it is made or when the pipeline is
// lowered. The message names the Func and the Var and says what to do instead.
class CompileError : public Error {
public:
    explicit CompileError(const std::string& message) : Error(message) {}
};

// A bad input when a compiled pipeline runs: a buffer of the wrong type or dimensionality, too
// small for the region the pipeline reads, an unset ImageParam. Detected before any access.
class RuntimeError : public Error {
public:
    explicit RuntimeError(const std::string& message) : Error(message) {}
};

// A broken invariant inside the compiler: a Tessera bug, never a user's mistake.
class InternalError : public Error {
public:
    explicit InternalError(const std::string& message) : Error(message) {}
};

}  // namespace tessera
