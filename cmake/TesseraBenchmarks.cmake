# Benchmarks (Google Benchmark), side by side with their peers, wherever they live (tests/performance,
# apps/*). Included once from the top level, so that the packages found here and the `benchmarks`
# target are seen by every directory. Without Google Benchmark there are no benchmarks; without
# Halide 14 the Halide rows are left out.

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

# Builds every benchmark program; scripts/run_benchmarks.sh runs them and prints the table of ratios.
add_custom_target(benchmarks)

# tessera_add_benchmark(name): the program name.cpp of the calling directory, linked with Tessera and
# Google Benchmark's library (the program has its own main()), and with Halide 14 when found
# (TESSERA_BENCHMARK_HALIDE is then defined). tests/performance holds headers the programs share.
function(tessera_add_benchmark name)
  add_executable(${name} ${name}.cpp)
  target_link_libraries(${name} PRIVATE tessera benchmark::benchmark)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/performance)
  if(Halide_FOUND)
    target_link_libraries(${name} PRIVATE Halide::Halide)
    target_compile_definitions(${name} PRIVATE TESSERA_BENCHMARK_HALIDE=1)
  endif()
  add_dependencies(benchmarks ${name})
endfunction()
