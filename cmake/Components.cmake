# Optional-component bookkeeping: each component has a cache option
# CLGEN_WITH_<NAME> = AUTO | ON | OFF and ends up with CLGEN_HAVE_<NAME>.

set(CLGEN_COMPONENTS "")

# Declares a component; sets CLGEN_WANT_<name> when it should be looked for.
macro(clgen_component name description)
  set(CLGEN_WITH_${name} AUTO CACHE STRING "Build ${description}: AUTO, ON or OFF")
  set_property(CACHE CLGEN_WITH_${name} PROPERTY STRINGS AUTO ON OFF)
  set(CLGEN_DESC_${name} "${description}")
  list(APPEND CLGEN_COMPONENTS ${name})
  set(CLGEN_HAVE_${name} FALSE)
  if(CLGEN_WITH_${name} STREQUAL "OFF")
    set(CLGEN_WANT_${name} FALSE)
    set(CLGEN_WHY_${name} "disabled with -DCLGEN_WITH_${name}=OFF")
  else()
    set(CLGEN_WANT_${name} TRUE)
  endif()
endmacro()

# Records whether a wanted component's dependencies were found.
macro(clgen_component_found name found_var what)
  if(${found_var})
    set(CLGEN_HAVE_${name} TRUE)
    add_compile_definitions(CLGEN_HAVE_${name}=1)
  elseif(CLGEN_WITH_${name} STREQUAL "ON")
    message(FATAL_ERROR "CLGEN_WITH_${name}=ON but ${what} not found")
  else()
    set(CLGEN_WHY_${name} "${what} not found (run scripts/install-deps.sh)")
  endif()
endmacro()

function(clgen_component_summary)
  message(STATUS "clgen components:")
  foreach(name IN LISTS CLGEN_COMPONENTS)
    if(CLGEN_HAVE_${name})
      message(STATUS "  ${name}: yes  - ${CLGEN_DESC_${name}}")
    else()
      message(STATUS "  ${name}: NO   - ${CLGEN_DESC_${name}}: ${CLGEN_WHY_${name}}")
    endif()
  endforeach()
endfunction()
