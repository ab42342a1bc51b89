#pragma once
// Tessera: an embedded scheduling language for image processing and DNN operators.
// #include <tessera/tessera.h> and write `using namespace tessera;`.

#include "tessera/boundary_conditions.h"
#include "tessera/buffer.h"
#include "tessera/cache.h"
#include "tessera/error.h"
#include "tessera/evaluate.h"
#include "tessera/expr.h"
#include "tessera/func.h"
#include "tessera/generator.h"
#include "tessera/generator_param.h"
#include "tessera/image_io.h"
#include "tessera/inline_reductions.h"
#include "tessera/lambda.h"
#include "tessera/operators.h"
#include "tessera/param.h"
#include "tessera/pipeline.h"
#include "tessera/rdom.h"
#include "tessera/target.h"
#include "tessera/tuple.h"
#include "tessera/type.h"
#include "tessera/var.h"
