"""A stand-in for rules_java's java/defs.bzl for Bazel 4.2 offline.

Bazel 4.2's own tools (the JDK toolchains it registers, whose BUILD file it reads to
resolve any target's toolchains, C++ ones included) load the Java rules from
@rules_java, which Bazel downloads. These rules are Bazel's native ones, which is what
rules_java's defs.bzl gave at that time; the C++ example never runs them.
"""

def java_binary(**attrs):
    native.java_binary(**attrs)

def java_import(**attrs):
    native.java_import(**attrs)

def java_library(**attrs):
    native.java_library(**attrs)

def java_lite_proto_library(**attrs):
    native.java_lite_proto_library(**attrs)

def java_package_configuration(**attrs):
    native.java_package_configuration(**attrs)

def java_plugin(**attrs):
    native.java_plugin(**attrs)

def java_proto_library(**attrs):
    native.java_proto_library(**attrs)

def java_runtime(**attrs):
    native.java_runtime(**attrs)

def java_test(**attrs):
    native.java_test(**attrs)

def java_toolchain(**attrs):
    native.java_toolchain(**attrs)
