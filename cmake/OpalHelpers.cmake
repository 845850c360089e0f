# Helpers shared by opal's CMake files.

# opal_add_component(NAME SOURCES...)
#   One folder of the runtime core (Support, Schema, ...) as an object library
#   that goes into libopal.so. Core components do not link MLIR or LLVM.
function(opal_add_component name)
  add_library(OpalComponent${name} OBJECT ${ARGN})
  target_include_directories(OpalComponent${name}
    PUBLIC "${OPAL_SOURCE_DIR}/include" "${CMAKE_BINARY_DIR}/include")
  # Calls inside libopal.so go direct, not through the PLT.
  target_compile_options(OpalComponent${name} PRIVATE -fno-semantic-interposition)
  set_property(GLOBAL APPEND PROPERTY OPAL_CORE_COMPONENTS OpalComponent${name})
endfunction()

# opal_use_mlir(TARGET)
#   Compiles TARGET against Debian's MLIR/LLVM 22 headers and links the shared
#   libMLIR.so and libLLVM.so (never the static libMLIR*.a).
function(opal_use_mlir target)
  target_include_directories(${target} SYSTEM PRIVATE
    ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  separate_arguments(llvm_definitions NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  target_compile_definitions(${target} PRIVATE ${llvm_definitions})
  target_link_libraries(${target} PRIVATE MLIR LLVM)
endfunction()
