#pragma once
// The reads of one input image (a Buffer or an ImageParam, by its name) in a Func's definitions.

#include <string>
#include <vector>

#include "ir/expr_nodes.h"
#include "lang/function.h"

namespace tessera::autoschedule {

// Every call of the image in a definition (values and indices), in the order they appear.
std::vector<const ir::Call*> image_reads(const lang::Definition& d, const std::string& image);
// And in all of f's definitions, the pure one first.
std::vector<const ir::Call*> image_reads(const lang::FunctionContents& f, const std::string& image);

}  // namespace tessera::autoschedule
