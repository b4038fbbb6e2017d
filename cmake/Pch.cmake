# Precompiled headers (CLGEN_PCH, default OFF): the headers most translation
# units parse (the standard library, fmt, nlohmann/json; GoogleTest in tests;
# LibTorch's torch/torch.h and Clang's AST and frontend headers where those
# are used) are compiled once per group of targets that share compile flags,
# not once per translation unit. torch/torch.h alone costs about 20 CPU
# seconds a unit; with the header precompiled, model/network.cpp took 19.9
# CPU s instead of 35.2, corpus/preprocess/extract.cpp 16.1 instead of 28.4.
# Compiling the headers costs 48 s (LibTorch), 37 s (Clang), 8 s (tests). It
# is off by default: switching it on makes every unit that uses it a ccache
# miss once. The precompiled header is only ever added to a unit
# (-include), so a unit compiles the same with CLGEN_PCH=OFF; GCC falls back
# to the plain headers (-Winvalid-pch says so) if the flags ever differ.
#
# ccache: units that use a precompiled header are cached only with
# `sloppiness = pch_defines,time_macros` (ccache.conf or CCACHE_SLOPPINESS).
#
# clgen_apply_build_speedups() runs once, after every module and test is added:
# it gives each listed library its group's header, and every GoogleTest
# executable under tests/ CLGEN_TEST_OPT and, unless it links LibTorch, the
# test group's header.
option(CLGEN_PCH "Precompile the common headers (STL, fmt, json, gtest, LibTorch, Clang)" OFF)
# The GoogleTest programs' own code is compiled with CLGEN_TEST_OPT (their
# assertions and fixtures; the libraries and binaries they test keep the build
# type's -O3): a test unit takes about 40% less CPU at -O1 than at -O3.
set(CLGEN_TEST_OPT "-O1" CACHE STRING "Optimization flag of the test programs' own units (empty: the build type's)")

set(_clgen_pch_common
  <algorithm> <chrono> <cstdint> <cstdio> <cstdlib> <filesystem> <fstream> <functional> <map>
  <memory> <mutex> <optional> <set> <sstream> <string> <string_view> <thread> <unordered_map>
  <utility> <vector> <fmt/format.h> <nlohmann/json.hpp>)
set(_clgen_pch_torch <torch/torch.h>)
set(_clgen_pch_clang
  <llvm/ADT/StringRef.h> <llvm/Support/raw_ostream.h> <clang/AST/ASTConsumer.h>
  <clang/AST/ASTContext.h> <clang/AST/RecursiveASTVisitor.h> <clang/Basic/SourceManager.h>
  <clang/Frontend/CompilerInstance.h> <clang/Frontend/FrontendAction.h> <clang/Lex/Lexer.h>
  <clang/Lex/Preprocessor.h>)
set(_clgen_pch_gtest <gtest/gtest.h>)
# What a unit must include (itself or through a project header) to use its group's header.
set(_clgen_pch_uses_clang "#include <(clang|llvm)/")
set(_clgen_pch_uses_torch "#include <torch/(torch|csrc)")
set(_clgen_pch_uses_test "#include <(gtest/gtest|nlohmann/json)")

# Groups: the targets of a group have the same compile flags (as listed in
# build/compile_commands.json), so one small owner target with those flags
# compiles the header and the group reuses it; an owner of its own keeps the
# group's targets from waiting on each other (REUSE_FROM orders the builds).
set(_clgen_pch_group_clang clgen_preprocess clgen_clang clgen_features)

# _clgen_pch_group(GROUP HEADERS TARGETS OWNER_TYPE LIBS...): OWNER_TYPE is
# EXECUTABLE (tests: -fPIE) or OBJECT (libraries: -fPIC).
function(_clgen_pch_group group headers targets owner_type)
  set(present "")
  foreach(t ${targets})
    if(TARGET ${t})
      list(APPEND present ${t})
    endif()
  endforeach()
  if(NOT present)
    return()
  endif()
  set(owner clgen_pch_${group})
  set(src ${CMAKE_BINARY_DIR}/pch/${owner}.cpp)
  if(owner_type STREQUAL "EXECUTABLE")
    file(WRITE ${src} "int main() { return 0; }\n")
    add_executable(${owner} ${src})
    if(CLGEN_TEST_OPT)
      target_compile_options(${owner} PRIVATE ${CLGEN_TEST_OPT})  # the tests' flags
    endif()
  else()
    file(WRITE ${src} "int ${owner}_unit = 0;\n")
    add_library(${owner} OBJECT ${src})
  endif()
  target_include_directories(${owner} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${owner} PRIVATE fmt::fmt spdlog::spdlog ${ARGN})
  target_precompile_headers(${owner} PRIVATE ${headers})
  foreach(t ${present})
    target_precompile_headers(${t} REUSE_FROM ${owner})
    _clgen_pch_skip_light_units(${t} "${_clgen_pch_uses_${group}}")
  endforeach()
endfunction()

# Loading a precompiled header costs about 1 CPU second per 70 MB (LibTorch's
# is 630 MB): a unit that includes none of the group's headers, itself or
# through a project header it includes, compiles without it.
function(_clgen_pch_skip_light_units target regex)
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  foreach(src ${sources})
    if(NOT src MATCHES "\\.cpp$")
      continue()
    endif()
    if(NOT IS_ABSOLUTE "${src}")
      set(src "${dir}/${src}")
    endif()
    file(STRINGS "${src}" lines REGEX "^#include ")
    set(heavy FALSE)
    foreach(line ${lines})
      if(line MATCHES "${regex}")
        set(heavy TRUE)
        break()
      endif()
      if(line MATCHES "^#include \"([^\"]+)\"" AND EXISTS "${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1}")
        file(STRINGS "${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1}" inner REGEX "${regex}")
        if(inner)
          set(heavy TRUE)
          break()
        endif()
      endif()
    endforeach()
    if(NOT heavy)
      set_source_files_properties("${src}" TARGET_DIRECTORY ${target} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()

function(clgen_apply_build_speedups)
  set(tests_plain "")
  set(tests_torch "")
  if(BUILD_TESTING)
    find_package(GTest REQUIRED)  # tests/ found it, but imported targets are per directory
    get_property(tests DIRECTORY ${PROJECT_SOURCE_DIR}/tests PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t ${tests})
      get_target_property(type ${t} TYPE)
      get_target_property(libs ${t} LINK_LIBRARIES)
      if(NOT type STREQUAL "EXECUTABLE" OR NOT "GTest::gtest_main" IN_LIST libs)
        continue()
      endif()
      if(CLGEN_TEST_OPT)
        target_compile_options(${t} PRIVATE ${CLGEN_TEST_OPT})
      endif()
      if("torch" IN_LIST libs)
        list(APPEND tests_torch ${t})
      else()
        list(APPEND tests_plain ${t})
      endif()
    endforeach()
  endif()
  if(NOT CLGEN_PCH OR CLGEN_FUZZ)
    return()
  endif()
  if(TARGET clgen_clang)
    _clgen_pch_group(clang "${_clgen_pch_common};${_clgen_pch_clang}" "${_clgen_pch_group_clang}" OBJECT)
    if(TARGET clgen_pch_clang)
      target_include_directories(clgen_pch_clang SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
      separate_arguments(defs UNIX_COMMAND "${LLVM_DEFINITIONS}")
      target_compile_definitions(clgen_pch_clang PRIVATE ${defs})
    endif()
  endif()
  # clgen_model is LibTorch's only library: its own header.
  if(TARGET clgen_model)
    target_precompile_headers(clgen_model PRIVATE ${_clgen_pch_common} ${_clgen_pch_torch})
    _clgen_pch_skip_light_units(clgen_model "${_clgen_pch_uses_torch}")
  endif()
  if(BUILD_TESTING)
    _clgen_pch_group(test "${_clgen_pch_common};${_clgen_pch_gtest}" "${tests_plain}" EXECUTABLE GTest::gtest)
    # The tests that link LibTorch have 4 units that include it: a 630 MB header
    # compiled for them (45 CPU s) would save about as much as it costs.
  endif()
endfunction()
