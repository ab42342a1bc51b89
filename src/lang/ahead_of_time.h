#pragma once
// Ahead-of-time compilation of a pipeline, behind Pipeline::compile_to and the generators.

#include <map>
#include <string>
#include <vector>

#include "tessera/func.h"
#include "tessera/pipeline.h"
#include "tessera/target.h"

namespace tessera::lang {

struct AheadOfTimeRequest {
    std::map<OutputFileType, std::string> files;  // what to write, and where
    std::vector<Argument> inputs;                 // the C function's inputs, in order
    // The names of the C function's output arguments, one per output buffer (each output Func's
    // values in order). Empty: the names of the output Funcs (f, or f_0, f_1... for Tuples).
    std::vector<std::string> output_names;
    std::string function_name;
    // The machines the code is for: one, or several of one architecture and OS with different
    // instruction-set features, most capable first; the function then runs the first the CPU
    // supports, the last without asking. An undefined Target means the host.
    std::vector<Target> targets;
};

// Lowers the pipeline once and writes every requested file. Throws CompileError naming what is
// wrong: an input the pipeline reads that is not among the inputs, an argument of the wrong type
// or dimensionality, a function name that is not a C identifier, a file that cannot be written.
void compile_ahead_of_time(const Pipeline& pipeline, const AheadOfTimeRequest& request);

}  // namespace tessera::lang
