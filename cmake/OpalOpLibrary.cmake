# opal_add_op_library(<name> SOURCES <file.opal.mlir>... [CPU <cpu>] [CUDA <arch>...]
#                     [FRAGMENT])
#
#   Builds the shared library lib<name>.so from op-library files: opal-aot
#   compiles every `opal.precompile` specialization of each file into an
#   archive and writes the C source whose initializer registers the file's
#   ops, decompositions and precompiled kernels when the library is loaded
#   (opal.ops.load_library, dlopen). CPU is what the kernels are compiled for
#   (default native: this machine; x86-64-v3 etc. for other machines);
#   CUDA lists GPU archs to compile every specialization for as well (sm_90:
#   a cubin, compute_80: PTX; opal-aot --cuda);
#   FRAGMENT registers the namespaces as FRAGMENT libraries instead of DEF.
#   Needs the C language in the project: project(<p> LANGUAGES C CXX).
function(opal_add_op_library name)
  cmake_parse_arguments(ARG "FRAGMENT" "CPU" "SOURCES;CUDA" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "opal_add_op_library(${name}): give SOURCES <file.opal.mlir>...")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "opal_add_op_library(${name}): unexpected arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT CMAKE_C_COMPILER_LOADED)
    message(FATAL_ERROR "opal_add_op_library(${name}) compiles C: enable it with "
                        "project(<project> LANGUAGES C CXX)")
  endif()
  if(NOT ARG_CPU)
    set(ARG_CPU native)
  endif()
  set(flags "--cpu=${ARG_CPU}")
  if(ARG_FRAGMENT)
    list(APPEND flags --fragment)
  endif()
  if(ARG_CUDA)
    string(REPLACE ";" "," archs "${ARG_CUDA}")
    list(APPEND flags "--cuda=${archs}")
  endif()
  set(stubs)
  set(archives)
  foreach(source ${ARG_SOURCES})
    get_filename_component(path "${source}" ABSOLUTE)
    get_filename_component(stem "${source}" NAME_WE)
    set(archive "${CMAKE_CURRENT_BINARY_DIR}/${name}_${stem}_kernels.a")
    set(stub "${CMAKE_CURRENT_BINARY_DIR}/${name}_${stem}_register.c")
    add_custom_command(OUTPUT "${archive}" "${stub}"
      COMMAND "$<TARGET_FILE:opal::opal-aot>" "${path}" "--archive=${archive}"
              "--stub=${stub}" ${flags}
      DEPENDS "${path}" opal::opal-aot
      COMMENT "Compiling op library ${source} ahead of time"
      VERBATIM)
    list(APPEND stubs "${stub}")
    list(APPEND archives "${archive}")
  endforeach()
  add_library(${name} SHARED ${stubs})
  target_link_libraries(${name} PRIVATE ${archives} opal::opal m)
  set_target_properties(${name} PROPERTIES LINK_DEPENDS "${archives}")
endfunction()
