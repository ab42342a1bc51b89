#pragma once
// What identifies a pipeline in tuning records: a hash of a canonical text of its definitions, in
// which each Func is named by its place in realization order, so that two programs that build the
// same pipeline (their unnamed Funcs numbered differently) share records.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lang/function.h"
#include "lang/parameter.h"

namespace tessera::tune {

// The parameters (ImageParams and Params) the pipeline's definitions read, by name.
std::map<std::string, std::shared_ptr<lang::ParameterContents>> parameters_read(
    const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs);

// The canonical text itself, for tests and for debugging a signature that did not match.
std::string canonical_pipeline_text(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs);

// 16 hexadecimal digits: a 64-bit FNV-1a hash of the canonical text.
std::string signature_of(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs);

}  // namespace tessera::tune
