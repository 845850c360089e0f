# The package other projects find with find_package(opal): installed under
# <prefix>/lib/cmake/opal, and usable from the build tree with
# -Dopal_DIR=<build>/lib/cmake/opal.
include(CMakePackageConfigHelpers)
set(opal_package_dir "${OPAL_INSTALL_LIBDIR}/cmake/opal")

add_library(opal::opal ALIAS opal)
add_library(opal::opal_compiler ALIAS opal_compiler)
add_executable(opal::opal-aot ALIAS opal-aot)
include(OpalOpLibrary)

install(TARGETS opal opal_compiler opal-aot EXPORT opalTargets
  LIBRARY DESTINATION "${OPAL_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${OPAL_INSTALL_BINDIR}"
  INCLUDES DESTINATION "${OPAL_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${OPAL_SOURCE_DIR}/include/opal" DESTINATION "${OPAL_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h")
install(FILES "${CMAKE_BINARY_DIR}/include/opal/Config.h"
  DESTINATION "${OPAL_INSTALL_INCLUDEDIR}/opal")
# The TableGen'd declarations the dialect and pass headers include.
install(DIRECTORY "${CMAKE_BINARY_DIR}/include/opal/" DESTINATION "${OPAL_INSTALL_INCLUDEDIR}/opal"
  FILES_MATCHING PATTERN "*.inc" PATTERN "CMakeFiles" EXCLUDE)
install(EXPORT opalTargets NAMESPACE opal:: DESTINATION "${opal_package_dir}")

configure_package_config_file("${OPAL_SOURCE_DIR}/cmake/opalConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/${opal_package_dir}/opalConfig.cmake"
  INSTALL_DESTINATION "${opal_package_dir}")
write_basic_package_version_file(
  "${CMAKE_BINARY_DIR}/${opal_package_dir}/opalConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY ExactVersion)
configure_file("${OPAL_SOURCE_DIR}/cmake/OpalOpLibrary.cmake"
  "${CMAKE_BINARY_DIR}/${opal_package_dir}/OpalOpLibrary.cmake" COPYONLY)
export(EXPORT opalTargets NAMESPACE opal::
  FILE "${CMAKE_BINARY_DIR}/${opal_package_dir}/opalTargets.cmake")
install(FILES
  "${CMAKE_BINARY_DIR}/${opal_package_dir}/opalConfig.cmake"
  "${CMAKE_BINARY_DIR}/${opal_package_dir}/opalConfigVersion.cmake"
  "${OPAL_SOURCE_DIR}/cmake/OpalOpLibrary.cmake"
  DESTINATION "${opal_package_dir}")

# A Debian package of the installed tree: cpack -G DEB in the build tree
# (the prefix is /usr, so the Python package lands on Debian's sys.path).
set(CPACK_PACKAGE_NAME "opal")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "MLIR-based operator compiler and JIT dispatcher with PyTorch's dispatch rules")
set(CPACK_PACKAGE_CONTACT "opal developers <opal-dev@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
# Runtime packages only: the OpenMP runtime is whichever package holds the
# libomp.so.5 opal links (on Debian 12 with LLVM 22, libomp5-19: the -dev
# package only adds the link to it), and opal-aot links op libraries with
# the C compiler (`cc`, or $CC).
set(opal_openmp_runtime "libomp5-19")
find_library(opal_libomp5 NAMES libomp.so.5 PATHS "${LLVM_LIBRARY_DIR}" NO_DEFAULT_PATH)
if(opal_libomp5)
  get_filename_component(opal_libomp5_real "${opal_libomp5}" REALPATH)
  execute_process(COMMAND dpkg -S "${opal_libomp5_real}" OUTPUT_VARIABLE opal_libomp5_owner
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(opal_libomp5_owner MATCHES "^([^:,]+)(:[^:]+)?: ")
    set(opal_openmp_runtime "${CMAKE_MATCH_1}")
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libllvm22, libmlir-22, ${opal_openmp_runtime}, libhiredis0.14, python3 (>= 3.11), python3-numpy, llvm-22-tools, gcc | c-compiler")
include(CPack)
