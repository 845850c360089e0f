# The package other projects find with find_package(opal): installed under
# <prefix>/lib/cmake/opal, and usable from the build tree with
# -Dopal_DIR=<build>/lib/cmake/opal.
include(CMakePackageConfigHelpers)
set(opal_package_dir "lib/cmake/opal")

add_library(opal::opal ALIAS opal)
add_library(opal::opal_compiler ALIAS opal_compiler)
add_executable(opal::opal-aot ALIAS opal-aot)
include(OpalOpLibrary)

install(TARGETS opal opal_compiler opal-aot EXPORT opalTargets
  LIBRARY DESTINATION lib
  RUNTIME DESTINATION bin
  INCLUDES DESTINATION include)
install(DIRECTORY "${OPAL_SOURCE_DIR}/include/opal" DESTINATION include
  FILES_MATCHING PATTERN "*.h")
install(FILES "${CMAKE_BINARY_DIR}/include/opal/Config.h" DESTINATION include/opal)
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
