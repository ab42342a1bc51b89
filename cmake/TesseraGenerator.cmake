# Generators in a CMake build, spelled after Halide's functions:
#
#   add_tessera_generator(<exe> SOURCES <src>... [LINK_LIBRARIES <lib>...])
#     A generator program: the sources register generators with TESSERA_REGISTER_GENERATOR, and
#     Tessera::generator_main supplies main().
#
#   add_tessera_library(<name> FROM <exe> [GENERATOR <registered name>] [FUNCTION_NAME <function>]
#                       [PARAMS <param>=<value>...] [TARGETS <target>...])
#     Runs the generator during the build into ${CMAKE_CURRENT_BINARY_DIR}/<name>.a and <name>.h,
#     and makes <name> a library target: target_link_libraries(app PRIVATE <name>), then
#     #include "<name>.h". GENERATOR and FUNCTION_NAME default to <name>, TARGETS to host. The
#     library holds the runtime; a program that links it needs neither Tessera's compiler nor LLVM.
#
# Included by Tessera's own CMakeLists.txt (with TESSERA_INCLUDE_DIR its source include directory)
# and by the installed TesseraConfig.cmake (with the installed one).

include_guard(GLOBAL)
find_package(Threads REQUIRED)

# Where <tessera/runtime.h> lives, for the code that includes a generated header. A global property,
# so that the functions find it when called from any directory.
if(NOT TESSERA_INCLUDE_DIR)
  message(FATAL_ERROR "TesseraGenerator.cmake: set TESSERA_INCLUDE_DIR before including it")
endif()
set_property(GLOBAL PROPERTY TESSERA_GENERATOR_INCLUDE_DIR "${TESSERA_INCLUDE_DIR}")

function(add_tessera_generator exe)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LINK_LIBRARIES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_tessera_generator(${exe}): unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "add_tessera_generator(${exe}): SOURCES is required")
  endif()
  add_executable(${exe} ${ARG_SOURCES})
  # generator_main first: its main() calls into Tessera::tessera, which must follow it on the link line.
  target_link_libraries(${exe} PRIVATE Tessera::generator_main Tessera::tessera ${ARG_LINK_LIBRARIES})
endfunction()

function(add_tessera_library name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FROM;GENERATOR;FUNCTION_NAME" "PARAMS;TARGETS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_tessera_library(${name}): unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_FROM)
    message(FATAL_ERROR "add_tessera_library(${name}): FROM <generator executable> is required")
  endif()
  if(NOT ARG_GENERATOR)
    set(ARG_GENERATOR "${name}")
  endif()
  if(NOT ARG_FUNCTION_NAME)
    set(ARG_FUNCTION_NAME "${name}")
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS host)
  endif()
  # Several targets (one kind of machine, most capable first) make one library that runs the first
  # the CPU supports; the driver takes them as Halide's does, comma-separated.
  list(JOIN ARG_TARGETS "," target_string)

  set(dir "${CMAKE_CURRENT_BINARY_DIR}")
  set(library "${dir}/${name}${CMAKE_STATIC_LIBRARY_SUFFIX}")
  set(header "${dir}/${name}.h")
  add_custom_command(
    OUTPUT "${library}" "${header}"
    COMMAND ${ARG_FROM} -g ${ARG_GENERATOR} -f ${ARG_FUNCTION_NAME} -n ${name} -o "${dir}"
            -e static_library,h target=${target_string} ${ARG_PARAMS}
    DEPENDS ${ARG_FROM}
    COMMENT "Generating ${name} with generator ${ARG_GENERATOR} for ${target_string}"
    VERBATIM)
  add_custom_target(${name}.update DEPENDS "${library}" "${header}")

  get_property(tessera_include_dir GLOBAL PROPERTY TESSERA_GENERATOR_INCLUDE_DIR)
  add_library(${name} STATIC IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES
    IMPORTED_LOCATION "${library}"
    # The runtime in the archive is C++.
    IMPORTED_LINK_INTERFACE_LANGUAGES CXX
    INTERFACE_INCLUDE_DIRECTORIES "${dir};${tessera_include_dir}"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS}")
  add_dependencies(${name} ${name}.update)
endfunction()
