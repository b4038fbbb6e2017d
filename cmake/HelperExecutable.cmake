# clgen_helper_executable(TARGET SOURCE FINDER_SOURCE MACRO): a worker binary
# that clgen starts (e.g. clgen-clang-worker), built beside clgen, where the
# parent looks for it; FINDER_SOURCE, the file that locates it, gets MACRO
# defined to its build path, for test binaries elsewhere in the tree.
function(clgen_helper_executable target source finder_source macro)
  add_executable(${target} ${source})
  set(dir "${PROJECT_BINARY_DIR}/cli")
  if(CMAKE_RUNTIME_OUTPUT_DIRECTORY)
    set(dir "${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
  endif()
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${dir}")
  set_property(SOURCE ${finder_source} APPEND PROPERTY COMPILE_DEFINITIONS ${macro}="${dir}/${target}")
endfunction()
