# Benchmarks (Google Benchmark), side by side with their peers, wherever they live (tests/performance,
# apps/*). Included once from the top level, so that the packages found here and the `benchmarks`
# target are seen by every directory. Without Google Benchmark there are no benchmarks; without a
# peer (Halide 14, OpenBLAS, oneDNN) the rows of that peer are left out.

find_package(benchmark QUIET)
if(NOT benchmark_FOUND)
  message(STATUS "Tessera: Google Benchmark not found (libbenchmark-dev); skipping the benchmarks")
  return()
endif()

find_package(Halide 14 CONFIG QUIET)
if(Halide_FOUND)
  message(STATUS "Tessera: benchmarks compare against Halide ${Halide_VERSION}")
else()
  message(STATUS "Tessera: Halide 14 not found (libhalide14-0-dev); benchmarks run without it")
endif()

# OpenBLAS (libopenblas-dev): cblas_sgemm and openblas_set_num_threads, for the matrix multiply.
# Debian installs it under an alternatives directory that pkg-config knows; elsewhere the plain
# library and header are looked for.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(TESSERA_PC_OPENBLAS QUIET openblas)
endif()
find_path(TESSERA_OPENBLAS_INCLUDE_DIR cblas.h HINTS ${TESSERA_PC_OPENBLAS_INCLUDE_DIRS}
  PATH_SUFFIXES openblas x86_64-linux-gnu/openblas-pthread)
find_library(TESSERA_OPENBLAS_LIBRARY openblas HINTS ${TESSERA_PC_OPENBLAS_LIBRARY_DIRS}
  PATH_SUFFIXES openblas-pthread)
if(TESSERA_OPENBLAS_INCLUDE_DIR AND TESSERA_OPENBLAS_LIBRARY)
  add_library(tessera_peer_openblas INTERFACE)
  target_include_directories(tessera_peer_openblas SYSTEM INTERFACE ${TESSERA_OPENBLAS_INCLUDE_DIR})
  target_link_libraries(tessera_peer_openblas INTERFACE ${TESSERA_OPENBLAS_LIBRARY})
  target_compile_definitions(tessera_peer_openblas INTERFACE TESSERA_BENCHMARK_OPENBLAS=1)
  message(STATUS "Tessera: benchmarks compare against OpenBLAS (${TESSERA_OPENBLAS_LIBRARY})")
else()
  message(STATUS "Tessera: OpenBLAS not found (libopenblas-dev); benchmarks run without it")
endif()

# oneDNN (libdnnl-dev), for the convolutions. Found by its header and library rather than by
# find_package(dnnl CONFIG): Debian's package config, built with an OpenCL GPU runtime, calls
# find_package(OpenCL REQUIRED), a fatal error wherever OpenCL's headers are missing, though the
# CPU library needs none of it.
find_path(TESSERA_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(TESSERA_DNNL_LIBRARY dnnl)
if(TESSERA_DNNL_INCLUDE_DIR AND TESSERA_DNNL_LIBRARY)
  file(STRINGS ${TESSERA_DNNL_INCLUDE_DIR}/oneapi/dnnl/dnnl_version.h TESSERA_DNNL_VERSION_LINES
    REGEX "#define DNNL_VERSION_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE "[^0-9;]" "" TESSERA_DNNL_VERSION "${TESSERA_DNNL_VERSION_LINES}")
  string(REPLACE ";" "." TESSERA_DNNL_VERSION "${TESSERA_DNNL_VERSION}")
  add_library(tessera_peer_dnnl INTERFACE)
  target_include_directories(tessera_peer_dnnl SYSTEM INTERFACE ${TESSERA_DNNL_INCLUDE_DIR})
  target_link_libraries(tessera_peer_dnnl INTERFACE ${TESSERA_DNNL_LIBRARY})
  target_compile_definitions(tessera_peer_dnnl INTERFACE TESSERA_BENCHMARK_DNNL=1)
  message(STATUS "Tessera: benchmarks compare against oneDNN ${TESSERA_DNNL_VERSION} (${TESSERA_DNNL_LIBRARY})")
else()
  message(STATUS "Tessera: oneDNN not found (libdnnl-dev); benchmarks run without it")
endif()

# Builds every benchmark program; scripts/run_benchmarks.sh runs them and prints the table of ratios.
add_custom_target(benchmarks)

# tessera_add_benchmark(name [SOURCES more.cpp ...] [PEERS openblas dnnl ...]): the program name.cpp
# of the calling directory (with any more sources), linked with Tessera and Google Benchmark's
# library (the program has its own main()), and with Halide 14 when found (TESSERA_BENCHMARK_HALIDE
# is then defined). Each peer named that was found is linked too and defines its macro
# (TESSERA_BENCHMARK_OPENBLAS, TESSERA_BENCHMARK_DNNL); a peer not found is left out silently, and
# the program says so when it runs. tests/performance holds headers the programs share.
function(tessera_add_benchmark name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;PEERS")
  add_executable(${name} ${name}.cpp ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE tessera benchmark::benchmark)
  foreach(peer IN LISTS arg_PEERS)
    if(TARGET tessera_peer_${peer})
      target_link_libraries(${name} PRIVATE tessera_peer_${peer})
    endif()
  endforeach()
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/performance)
  if(Halide_FOUND)
    target_link_libraries(${name} PRIVATE Halide::Halide)
    target_compile_definitions(${name} PRIVATE TESSERA_BENCHMARK_HALIDE=1)
  endif()
  add_dependencies(benchmarks ${name})
endfunction()
