// The cost model trained ahead of time (data/cost_model.ubj, made by scripts/train_cost_model.sh),
// kept inside the library as bytes so that the automatic scheduler needs no file at run time. The
// path comes from the build (TESSERA_COST_MODEL_PATH); this file is compiled without ccache, which
// cannot see that the object depends on the model.

#include <string_view>

#ifdef TESSERA_COST_MODEL_PATH
asm(".pushsection .rodata\n"
    ".balign 16\n"
    ".hidden tessera_cost_model_begin\n"
    ".globl tessera_cost_model_begin\n"
    "tessera_cost_model_begin:\n"
    ".incbin \"" TESSERA_COST_MODEL_PATH
    "\"\n"
    ".hidden tessera_cost_model_end\n"
    ".globl tessera_cost_model_end\n"
    "tessera_cost_model_end:\n"
    ".popsection\n");

extern "C" const char tessera_cost_model_begin[];
extern "C" const char tessera_cost_model_end[];
#endif

namespace tessera::autoschedule {

std::string_view shipped_cost_model_bytes() {
#ifdef TESSERA_COST_MODEL_PATH
    return std::string_view(tessera_cost_model_begin,
                            size_t(tessera_cost_model_end - tessera_cost_model_begin));
#else
    return {};
#endif
}

}  // namespace tessera::autoschedule
