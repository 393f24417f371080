# find_package(opgen): the runtime library, its C headers and the opgen executable of
# an installed opgen. `opgen config --cmake-dir` prints this file's folder:
#
#   cmake -Dopgen_DIR="$(opgen config --cmake-dir)" ...
#
# Defines
#   opgen::runtime       imported shared library; its include directory holds
#                        tensorflow/c/c_api.h (TensorFlow's C API) and opgen/c_api_ext.h
#   opgen::opgen         imported executable: the `opgen` command, for add_custom_command
#   OPGEN_EXECUTABLE     the same command's path (set it to choose another)
#   OPGEN_INCLUDE_DIR, OPGEN_RUNTIME_LIBRARY, OPGEN_BUNDLED_OPS (the runtime's ops.pbtxt)
#
# Everything is found relative to this file (it sits in <site-packages>/opgen/cmake), so
# the installed package can move.

get_filename_component(_opgen_package_dir "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(OPGEN_INCLUDE_DIR "${_opgen_package_dir}/include")
set(OPGEN_RUNTIME_LIBRARY "${_opgen_package_dir}/lib/libopgen_runtime.so")
set(OPGEN_BUNDLED_OPS "${_opgen_package_dir}/ops.pbtxt")

if(NOT EXISTS "${OPGEN_RUNTIME_LIBRARY}" OR NOT EXISTS "${OPGEN_INCLUDE_DIR}/tensorflow/c/c_api.h")
  set(opgen_FOUND FALSE)
  set(opgen_NOT_FOUND_MESSAGE
      "opgen's runtime library or headers are missing under ${_opgen_package_dir}; reinstall opgen")
  return()
endif()

# Console scripts go to <prefix>/bin; the package is <prefix>/lib/pythonX.Y/site-packages/
# opgen (venvs, --user, /usr/local) or <prefix>/lib/python3/dist-packages/opgen (Debian).
find_program(OPGEN_EXECUTABLE opgen
  HINTS "${_opgen_package_dir}/../../../../bin" "${_opgen_package_dir}/../../../bin"
  DOC "the opgen command line")
if(NOT OPGEN_EXECUTABLE)
  set(opgen_FOUND FALSE)
  set(opgen_NOT_FOUND_MESSAGE
      "the opgen command was not found beside ${_opgen_package_dir} or on PATH; set OPGEN_EXECUTABLE")
  return()
endif()

if(NOT TARGET opgen::runtime)
  add_library(opgen::runtime SHARED IMPORTED)
  set_target_properties(opgen::runtime PROPERTIES
    IMPORTED_LOCATION "${OPGEN_RUNTIME_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${OPGEN_INCLUDE_DIR}")
endif()
if(NOT TARGET opgen::opgen)
  add_executable(opgen::opgen IMPORTED)
  set_target_properties(opgen::opgen PROPERTIES IMPORTED_LOCATION "${OPGEN_EXECUTABLE}")
endif()

unset(_opgen_package_dir)
