// Registers the blur generator under the name the build uses: add_tessera_library(... GENERATOR blur).
#include "blur_generator.h"

TESSERA_REGISTER_GENERATOR(BlurGenerator, blur)
