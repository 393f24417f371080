# The wheel build (`pip install .`, run by scikit-build-core): a thin outer project that
# builds and installs this same project, configured as a nested build, from a folder
# that survives between installs.
#
# Why: pip builds every install in a fresh isolated environment, and scikit-build-core
# deletes the build tree's CMakeCache.txt and CMakeFiles/ - every object file - whenever
# that environment is not the last one's (its "New isolated environment ... clearing
# cache"), i.e. on every `pip install .`. The nested build's tree, build/<wheel tag>/native,
# is outside what it deletes, so a second install (the README's test command after its
# first command) finds the objects of the first and recompiles only what changed.
#
# Included from the top-level CMakeLists.txt before project() enables any language.

include(ExternalProject)

# What the nested build needs from the outer one, plus every -D the user gave
# (`pip install . -Ccmake.define.OPGEN_CUDA_ARCHITECTURES=90`, $CMAKE_ARGS): CMake marks
# those with a fixed help string. Semicolons of list values travel as "|".
set(_opgen_nested_args
  -DOPGEN_NESTED_BUILD=ON
  "-DPython_EXECUTABLE=${Python_EXECUTABLE}"
  "-DSKBUILD_PROJECT_VERSION=${SKBUILD_PROJECT_VERSION}")
if(NOT CMAKE_BUILD_TYPE)
  list(APPEND _opgen_nested_args -DCMAKE_BUILD_TYPE=Release)
endif()
get_cmake_property(_opgen_cache_vars CACHE_VARIABLES)
foreach(_var IN LISTS _opgen_cache_vars)
  get_property(_help CACHE "${_var}" PROPERTY HELPSTRING)
  if(_help STREQUAL "No help, variable specified on the command line."
     AND NOT _var MATCHES "^(CMAKE_INSTALL_PREFIX|CMAKE_MODULE_PATH|CMAKE_PREFIX_PATH|SKBUILD.*)$")
    string(REPLACE ";" "|" _value "${${_var}}")
    list(APPEND _opgen_nested_args "-D${_var}=${_value}")
  endif()
endforeach()

set(_opgen_staging "${CMAKE_BINARY_DIR}/native-install")
ExternalProject_Add(opgen_native
  SOURCE_DIR "${CMAKE_CURRENT_SOURCE_DIR}"
  BINARY_DIR "${CMAKE_BINARY_DIR}/native"
  PREFIX "${CMAKE_BINARY_DIR}/native-steps"
  INSTALL_DIR "${_opgen_staging}"
  LIST_SEPARATOR "|"
  CMAKE_ARGS ${_opgen_nested_args} "-DCMAKE_INSTALL_PREFIX=<INSTALL_DIR>"
  # Always ask the nested build (ninja decides what is out of date), and install into an
  # emptied staging folder, so that a file removed from the sources leaves the wheel too.
  BUILD_ALWAYS ON
  INSTALL_COMMAND "${CMAKE_COMMAND}" -E rm -rf "<INSTALL_DIR>"
  COMMAND "${CMAKE_COMMAND}" --install "<BINARY_DIR>" --prefix "<INSTALL_DIR>"
  USES_TERMINAL_BUILD ON)

# The wheel gets exactly what the nested build installed (site-packages/opgen/...).
install(DIRECTORY "${_opgen_staging}/" DESTINATION "." USE_SOURCE_PERMISSIONS)
