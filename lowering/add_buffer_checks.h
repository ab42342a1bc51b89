#pragma once
// Guards the pipeline against bad buffers before it touches memory: every buffer argument is
// checked for its element type, its dimensionality and a non-null host pointer; then its shape
// fields are read into lets (buffer_min/extent/stride names); then, once bounds inference has
// defined the required regions, every input is checked to cover what the pipeline reads and every
// output to contain what the pipeline writes.

#include <vector>

#include "ir/stmt.h"
#include "lowering/pipeline_arguments.h"

namespace tessera::lowering {

ir::Stmt add_buffer_checks(const ir::Stmt& s, const std::vector<PipelineArgument>& args);

}  // namespace tessera::lowering
