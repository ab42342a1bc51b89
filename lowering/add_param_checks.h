#pragma once
// Checks every scalar Param that has a range (Param::set_range, a generator Input's min and max)
// against it when the pipeline starts: a value outside is an error that names the Param and the
// range, not a silent wrong answer.

#include <vector>

#include "ir/stmt.h"
#include "lowering/pipeline_arguments.h"

namespace tessera::lowering {

ir::Stmt add_param_checks(const ir::Stmt& s, const std::vector<PipelineArgument>& args);

}  // namespace tessera::lowering
