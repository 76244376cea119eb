# sfg_add_discipline(TARGET SPEC FILE.sfg [NAMESPACE NS]) (docs/enforcers.md): runs
# `sfgc FILE.sfg --emit-cpp <stem>.sfg.hpp [--namespace NS]` at build time, again whenever the
# spec changes, and puts the header on TARGET's include path (`#include "<stem>.sfg.hpp"`).
# A spec with errors fails the build with sfgc's diagnostics.
function(sfg_add_discipline target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SPEC;NAMESPACE" "")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "sfg_add_discipline: '${target}' is not a target")
  endif()
  if(NOT arg_SPEC)
    message(FATAL_ERROR "sfg_add_discipline(${target} ...): SPEC FILE.sfg is required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "sfg_add_discipline(${target} ...): unexpected '${arg_UNPARSED_ARGUMENTS}' "
      "(usage: sfg_add_discipline(TARGET SPEC FILE.sfg [NAMESPACE NS]))")
  endif()
  if(NOT TARGET sfg::sfgc)
    message(FATAL_ERROR "sfg_add_discipline: no sfg::sfgc target (find_package(sfg) first)")
  endif()
  get_filename_component(spec "${arg_SPEC}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(stem "${spec}" NAME_WLE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/sfg_generated/${target}")
  set(header "${dir}/${stem}.sfg.hpp")
  set(namespace_args)
  if(arg_NAMESPACE)
    set(namespace_args --namespace "${arg_NAMESPACE}")
  endif()
  add_custom_command(OUTPUT "${header}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND sfg::sfgc "${spec}" --emit-cpp "${header}" ${namespace_args}
    DEPENDS "${spec}" sfg::sfgc
    COMMENT "sfgc: ${stem}.sfg.hpp from ${arg_SPEC}"
    VERBATIM)
  target_sources(${target} PRIVATE "${header}")
  target_include_directories(${target} PRIVATE "${dir}")
endfunction()
