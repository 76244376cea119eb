# `cmake --install BUILD --prefix P` (docs/install.md): the sfgc driver, the runtime library with
# its public headers, and the CMake package `sfg` (targets sfg::runtime and sfg::sfgc). The
# grammar, compiler, checker and infer libraries are internal: sfgc links them statically, and neither
# they nor their headers are installed. Tests, benchmarks and fuzz harnesses are not installed.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SFG_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/sfg)

# An installed sfgc must run from the prefix alone.
foreach(lib sfg_grammar sfg_compiler sfg_checker sfg_infer)
  get_target_property(type ${lib} TYPE)
  if(NOT type STREQUAL "STATIC_LIBRARY")
    message(WARNING "${lib} is a ${type}: the installed sfgc would need it, but it is not installed "
      "(configure without BUILD_SHARED_LIBS)")
  endif()
endforeach()

# A sanitizer build's library needs the sanitizer's runtime wherever it is linked.
if(SFG_SANITIZE)
  target_link_options(sfg_runtime INTERFACE $<INSTALL_INTERFACE:-fsanitize=${SFG_SANITIZE}>)
endif()

install(TARGETS sfg_runtime sfgc
  EXPORT sfgTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The headers of runtime/include/sfg/ are the public API: the live runtime (sfg/sfg.hpp,
# sfg/spec.hpp, the test adapters) and the analyses of traces by name (sfg/runtime/analyses.hpp,
# trace.hpp). runtime/internal/ (the detectors, SLPs, nets' analyses: what sfgc's libraries use)
# and runtime/src/ are not installed.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/sfg/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sfg
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")

install(EXPORT sfgTargets
  NAMESPACE sfg::
  FILE sfgTargets.cmake
  DESTINATION ${SFG_INSTALL_CMAKEDIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/sfgConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/sfgConfig.cmake
  INSTALL_DESTINATION ${SFG_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/sfgConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/sfgConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/sfgConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/sfgDiscipline.cmake
  DESTINATION ${SFG_INSTALL_CMAKEDIR})
