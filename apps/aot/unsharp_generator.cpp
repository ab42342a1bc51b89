// Registers the unsharp-mask generator as "unsharp".
#include "unsharp_generator.h"

TESSERA_REGISTER_GENERATOR(UnsharpGenerator, unsharp)
