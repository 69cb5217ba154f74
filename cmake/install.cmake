# install.cmake - what `cmake --install` puts under the prefix:
#   lib/libmemcgsim.so* and lib/libmemcgsim.a      (targets memcgsim, memcgsim_static)
#   include/memcgsim/*.h                           (the public API)
#   lib/cmake/memcgsim/                            (find_package(memcgsim CONFIG):
#                                                   memcgsim::memcgsim, memcgsim::memcgsim_static)
#   lib/pkgconfig/memcgsim.pc                      (pkg-config memcgsim)
#   bin/memcgsim                                   (the race / bench command)
#   share/doc/memcgsim/{README,CONTRIBUTING}.md, docs/, examples/
#                                                  (the documentation, links kept)
# Included (OPTIONAL) at the end of the top-level CMakeLists.txt, after the targets exist.
# Both the CMake package and the .pc file are relocatable: they find the prefix from
# their own location, so `cmake --install build --prefix /anywhere` works without
# reconfiguring (tests/install/run.sh relies on it).

include(CMakePackageConfigHelpers)

set(MSIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/memcgsim)
set(MSIM_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(TARGETS memcgsim memcgsim_static
  EXPORT memcgsimTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The public headers only (include/memcgsim); src/ and tools/ headers are private,
# and so are introspect.h and introspect/ (the tests' view of the model's insides:
# not exported from the shared library, so not installed).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/memcgsim
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "introspect.h" EXCLUDE PATTERN "introspect" EXCLUDE)

if(TARGET memcgsim_cli)
  install(TARGETS memcgsim_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The documentation: docs/ and what its pages link to (the README, the rulebook,
# the examples), in the same relative places so every link resolves there.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CONTRIBUTING.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs ${PROJECT_SOURCE_DIR}/examples
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The exported targets link PkgConfig::URCU, PkgConfig::CK, PkgConfig::JANSSON and Threads::Threads by
# name; memcgsimConfig.cmake recreates them (pkg-config) before including this file.
install(EXPORT memcgsimTargets
  NAMESPACE memcgsim::
  FILE memcgsimTargets.cmake
  DESTINATION ${MSIM_CMAKE_DIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/memcgsimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/memcgsimConfig.cmake
  INSTALL_DESTINATION ${MSIM_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/memcgsimConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)  # 0.x: minor versions may break the API
install(FILES
  ${PROJECT_BINARY_DIR}/memcgsimConfig.cmake
  ${PROJECT_BINARY_DIR}/memcgsimConfigVersion.cmake
  DESTINATION ${MSIM_CMAKE_DIR})

# memcgsim.pc: prefix relative to the .pc file's own directory (${pcfiledir}, known
# to pkgconf and freedesktop pkg-config alike), so the file survives --prefix at
# install time. MSIM_PC_PREFIX_REL is e.g. "../.." for lib/pkgconfig.
file(RELATIVE_PATH MSIM_PC_PREFIX_REL
  "/prefix/${MSIM_PKGCONFIG_DIR}" "/prefix")
string(REGEX REPLACE "/$" "" MSIM_PC_PREFIX_REL "${MSIM_PC_PREFIX_REL}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  message(WARNING "memcgsim.pc: absolute CMAKE_INSTALL_LIBDIR/INCLUDEDIR make it non-relocatable")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/memcgsim.pc.in
  ${PROJECT_BINARY_DIR}/memcgsim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/memcgsim.pc DESTINATION ${MSIM_PKGCONFIG_DIR})
