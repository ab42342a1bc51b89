#pragma once
// tessera-onnx's commands; each returns the process's exit status.

#include "command_line.h"

namespace tessera_onnx {

int run_command(const Options& options);      // run MODEL.onnx --input NAME=FILE.pb ... --output-dir DIR
int test_command(const Options& options);     // test DIR...
int info_command(const Options& options);     // info MODEL.onnx [--shape NAME=SHAPE]
int compare_command(const Options& options);  // compare A.pb B.pb
int tune_command(const Options& options);     // tune MODEL.onnx --records FILE [--trials N] [--time-budget T]

}  // namespace tessera_onnx
