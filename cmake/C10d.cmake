# Distributed training's c10d backends (GLOO, NCCL). LibTorch ships c10d's
# headers, but a backend's headers need their library's own (gloo/*.h,
# nccl.h), which an installation may lack (Debian's libtorch-dev needs
# libgloo-dev; PyTorch's wheel may or may not carry gloo/). So each backend is
# on only when the project's own file that uses it compiles against the
# LibTorch at hand: a missing header or a changed c10d API leaves the backend
# out, says so, and never breaks the build.

# clgen_c10d_probe(RESULT SOURCE DEFINITIONS... [INCLUDES dirs...]): compiles
# SOURCE (no link) against LibTorch; RESULT is cached, so it runs once per build dir.
function(clgen_c10d_probe result source)
  cmake_parse_arguments(P "" "" "DEFINITIONS;INCLUDES" ${ARGN})
  if(DEFINED ${result})
    return()
  endif()
  message(STATUS "Compiling ${source} against LibTorch (once, ~30 s)")
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  # Include paths and flags are passed as values, not as the imported
  # `torch` target: that target's link interface names targets of Torch's
  # own dependencies (protobuf::libprotobuf in PyTorch's wheel), which the
  # probe project does not define, and CMake then fails the whole configure
  # instead of the probe.
  get_target_property(_fmt_inc fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT _fmt_inc)
    set(_fmt_inc "")
  endif()
  set(_cuda_inc ${CUDAToolkit_INCLUDE_DIRS} ${CUDA_INCLUDE_DIRS})
  separate_arguments(_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  try_compile(_ok ${CMAKE_BINARY_DIR}/c10d-probe/${result}
    SOURCES ${PROJECT_SOURCE_DIR}/${source}
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${PROJECT_SOURCE_DIR};${TORCH_INCLUDE_DIRS};${_cuda_inc};${_fmt_inc};${P_INCLUDES}"
    COMPILE_DEFINITIONS ${P_DEFINITIONS} ${_torch_flags}
    CXX_STANDARD 17
    OUTPUT_VARIABLE _log)
  if(NOT _ok)
    file(WRITE ${CMAKE_BINARY_DIR}/c10d-probe/${result}.log "${_log}")
  endif()
  set(${result} ${_ok} CACHE INTERNAL "${source} compiles against LibTorch")
endfunction()

clgen_component(GLOO "distributed training on CPUs (c10d Gloo)")
if(CLGEN_WANT_GLOO AND CLGEN_HAVE_TORCH)
  clgen_c10d_probe(CLGEN_GLOO_COMPILES model/c10d_group.cpp
    DEFINITIONS -DUSE_C10D_GLOO -DCLGEN_HAVE_GLOO=1)
  clgen_component_found(GLOO CLGEN_GLOO_COMPILES
    "c10d's ProcessGroupGloo (gloo headers: libgloo-dev; see ${CMAKE_BINARY_DIR}/c10d-probe/CLGEN_GLOO_COMPILES.log)")
elseif(CLGEN_WANT_GLOO)
  set(CLGEN_WHY_GLOO "needs LibTorch")
endif()

clgen_component(NCCL "distributed training on CUDA GPUs (c10d NCCL)")
if(CLGEN_WANT_NCCL AND CLGEN_HAVE_TORCH AND TORCH_CUDA_LIBRARIES)
  # nccl.h: the system's, CUDA's, or the nvidia-nccl wheel beside PyTorch's.
  file(GLOB _nccl_hints "${TORCH_INSTALL_PREFIX}/../nvidia/*/include")
  find_path(CLGEN_NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} /usr/local/cuda/include)
  if(CLGEN_NCCL_INCLUDE_DIR)
    clgen_c10d_probe(CLGEN_NCCL_COMPILES model/c10d_nccl.cpp
      DEFINITIONS -DUSE_C10D_NCCL INCLUDES ${CLGEN_NCCL_INCLUDE_DIR})
  else()
    set(CLGEN_NCCL_COMPILES FALSE)
  endif()
  clgen_component_found(NCCL CLGEN_NCCL_COMPILES
    "nccl.h (${CLGEN_NCCL_INCLUDE_DIR}) and c10d's ProcessGroupNCCL (see ${CMAKE_BINARY_DIR}/c10d-probe/CLGEN_NCCL_COMPILES.log)")
elseif(CLGEN_WANT_NCCL)
  set(CLGEN_WHY_NCCL "needs LibTorch with CUDA")
endif()
